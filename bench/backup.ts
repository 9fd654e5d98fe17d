// npm run bench:backup — what a hot backup costs the requests it runs beside.
//
// 1. Generates 1,000,000 order summaries (bench/history-data.ts) in a fresh data dir.
// 2. Starts a real gateway process on it (loopback only) with 30 active orders.
// 3. Runs the same paced load three times: GET /api/v2/activeorders (--get-rate a second,
//    kitchen displays polling) and durable writes (--write-rate a second: POST a new
//    order, then DELETE it, which also inserts its summary into the history), each on its
//    own keep-alive connection, latency counted from when a request was due (so a stalled
//    gateway is charged for the queue it builds):
//    (a) for --seconds without a backup (the baseline),
//    (b) while `gateway backup` writes a plain backup of the whole box,
//    (c) while it writes an encrypted one (scrypt + AES-256-GCM).
// Prints p50/p99/max per phase and the ratio of each p99 to the baseline's, the backups'
// duration and size, and writes bench/results/backup.json.
//
// Options: --rows N (default 1000000), --seconds N (baseline, default 30), --get-rate N
// (default 50), --write-rate N (default 10), --keep (keep the data dir).
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { freePort } from './free-port.ts'
import { generateHistory } from './history-data.ts'

const root = path.resolve(import.meta.dirname, '..')
const { values: flags } = parseArgs({
  options: {
    rows: { type: 'string' },
    seconds: { type: 'string' },
    'get-rate': { type: 'string' },
    'write-rate': { type: 'string' },
    keep: { type: 'boolean' },
  },
})
const rows = Number(flags.rows ?? 1_000_000)
const baselineSeconds = Number(flags.seconds ?? 30)
const getRate = Number(flags['get-rate'] ?? 50)
const writeRate = Number(flags['write-rate'] ?? 10)
const round = (n: number, digits = 2) => Number(n.toFixed(digits))

/** One keep-alive connection per client, as a display or a POS keeps one. */
function requester(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const send = (method: string, target: string, body?: unknown) =>
    new Promise<number>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method,
          path: target,
          agent,
          headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
        },
        (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
        },
      )
      request.on('error', reject)
      request.end(payload)
    })
  return { send, close: () => agent.destroy() }
}

interface Samples {
  get: number[]
  post: number[]
  delete: number[]
  failures: number
}

/**
 * Paced clients until `until` resolves: request i of a client is due at start + i/rate, and
 * its latency counts from then (a request sent late because the previous one was slow is
 * charged with the wait).
 */
async function load(port: number, until: Promise<unknown>): Promise<Samples & { seconds: number }> {
  const samples: Samples = { get: [], post: [], delete: [], failures: 0 }
  let running = true
  void until.finally(() => (running = false))
  const began = performance.now()
  const paced = async (rate: number, step: (due: number) => Promise<void>) => {
    for (let i = 0; running; i++) {
      const due = began + (i * 1000) / rate
      const wait = due - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      if (!running) break
      await step(due)
    }
  }
  const reader = requester(port)
  const writer = requester(port)
  let name = 500
  await Promise.all([
    paced(getRate, async (due) => {
      const status = await reader.send('GET', '/api/v2/activeorders')
      samples.get.push(performance.now() - due)
      if (status !== 200) samples.failures++
    }),
    paced(writeRate, async (due) => {
      name = name >= 999 ? 500 : name + 1
      const created = await writer.send('POST', '/api/v2/activeorders', { name, orderType: 'TO_GO' })
      samples.post.push(performance.now() - due)
      const second = performance.now()
      const cleared = await writer.send('DELETE', `/api/v2/activeorders/${name}`)
      samples.delete.push(performance.now() - second)
      if (created !== 200 || cleared !== 200) samples.failures++
    }),
  ])
  reader.close()
  writer.close()
  return { ...samples, seconds: (performance.now() - began) / 1000 }
}

function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
  return { count: sorted.length, p50Ms: round(at(50)), p99Ms: round(at(99)), maxMs: round(sorted.at(-1) ?? NaN) }
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; ms: number }> {
  const began = performance.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(root, 'runtime/cli.ts'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (out += chunk))
    child.on('exit', (code) => resolve({ code, out, ms: performance.now() - began }))
  })
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-backup-'))
  const backups = path.join(dataDir, 'backups')
  let gateway: ReturnType<typeof spawn> | undefined
  try {
    process.stderr.write(`generating ${rows.toLocaleString('en-US')} summaries…\n`)
    const generated = generateHistory(dataDir, rows)
    const historyMB = round(statSync(path.join(dataDir, 'history.sqlite')).size / 1e6, 1)
    mkdirSync(backups)
    writeFileSync(path.join(dataDir, 'passphrase'), 'a bench passphrase\n')
    const port = await freePort()
    const configFile = path.join(dataDir, 'gateway.config.json')
    writeFileSync(
      configFile,
      JSON.stringify({
        host: '127.0.0.1',
        port,
        dataDir,
        mdns: { enabled: false },
        // The bench measures backups beside requests, not token checks: the routes are opened
        // as a legacy integrator's would be.
        security: { openRoutes: ['GET /api/v2/activeorders', 'POST /api/v2/activeorders', 'DELETE /api/v2/activeorders/:id'] },
      }),
    )
    const env = { ...process.env, TZ: 'UTC', LOG_LEVEL: 'warn', NODE_COMPILE_CACHE: path.join(dataDir, 'compile-cache') }
    gateway = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', '--max-old-space-size=256', path.join(root, 'runtime/cli.ts'), 'start', '--config', configFile],
      { env, stdio: ['ignore', 'ignore', 'inherit'] },
    )
    const { send, close } = requester(port)
    for (;;) {
      if (gateway.exitCode !== null) throw new Error(`gateway exited with ${gateway.exitCode}`)
      if ((await send('GET', '/api/v2/activeorders').catch(() => 0)) === 200) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    for (let name = 1; name <= 30; name++) await send('POST', '/api/v2/activeorders', { name, orderType: 'ON_PREMISE' })
    close()
    const loadAverage: Record<string, number> = {}

    process.stderr.write('warm-up…\n')
    await load(port, new Promise((resolve) => setTimeout(resolve, 3000)))
    process.stderr.write(`baseline, ${baselineSeconds} s…\n`)
    loadAverage.baseline = round(os.loadavg()[0])
    const baseline = await load(port, new Promise((resolve) => setTimeout(resolve, baselineSeconds * 1000)))
    const phases: Record<string, { samples: Samples & { seconds: number }; backup: { ms: number; bytes: number; out: string } }> = {}
    for (const [phase, extra] of [
      ['plain', []],
      ['encrypted', ['--passphrase-file', path.join(dataDir, 'passphrase')]],
    ] as const) {
      process.stderr.write(`during a ${phase} backup…\n`)
      loadAverage[phase] = round(os.loadavg()[0])
      const target = path.join(backups, `${phase}.tar${phase === 'encrypted' ? '.enc' : ''}`)
      const backup = run(['backup', '--to', target, '--config', configFile, ...extra], env)
      const samples = await load(port, backup)
      const done = await backup
      if (done.code !== 0) throw new Error(`gateway backup failed: ${done.out}`)
      phases[phase] = { samples, backup: { ms: done.ms, bytes: statSync(target).size, out: done.out.trim() } }
    }
    loadAverage.end = round(os.loadavg()[0])

    const figures = (s: Samples) => ({ get: summary(s.get), post: summary(s.post), delete: summary(s.delete), failures: s.failures })
    const base = figures(baseline)
    const report = {
      date: new Date().toISOString(),
      machine: {
        nproc: os.availableParallelism(),
        cpu: os.cpus()[0]?.model ?? 'unknown',
        memoryGB: round(os.totalmem() / 2 ** 30, 1),
        node: process.version,
        loadAverage,
      },
      data: { summaries: generated.rows, historyMB, activeOrders: 30 },
      rates: { getPerSecond: getRate, writesPerSecond: writeRate },
      baseline: { seconds: round(baseline.seconds, 1), ...base },
      during: Object.fromEntries(
        Object.entries(phases).map(([phase, { samples, backup }]) => {
          const during = figures(samples)
          return [
            phase,
            {
              backupSeconds: round(backup.ms / 1000, 1),
              backupMB: round(backup.bytes / 1e6, 1),
              ...during,
              p99Ratio: {
                get: round(during.get.p99Ms / base.get.p99Ms),
                post: round(during.post.p99Ms / base.post.p99Ms),
                delete: round(during.delete.p99Ms / base.delete.p99Ms),
              },
            },
          ]
        }),
      ),
    }
    mkdirSync(path.join(root, 'bench/results'), { recursive: true })
    writeFileSync(path.join(root, 'bench/results/backup.json'), `${JSON.stringify(report, null, 2)}\n`)
    console.log(
      `backup benchmark: ${generated.rows.toLocaleString('en-US')} history rows (${historyMB} MB), 30 active orders; GET ${getRate}/s, POST+DELETE ${writeRate}/s`,
    )
    console.log(`machine: ${report.machine.nproc} × ${report.machine.cpu}, Node ${report.machine.node}, load average ${JSON.stringify(loadAverage)}`)
    const line = (label: string, f: ReturnType<typeof figures>, ratio?: { get: number; post: number; delete: number }) => {
      const cell = (k: 'get' | 'post' | 'delete') => `${f[k].p50Ms}/${f[k].p99Ms}/${f[k].maxMs}${ratio ? ` (p99 ×${ratio[k]})` : ''}`
      console.log(`${label.padEnd(22)} GET ${cell('get')}  POST ${cell('post')}  DELETE ${cell('delete')}  failures ${f.failures}`)
    }
    console.log('p50/p99/max ms:')
    line(`baseline (${report.baseline.seconds} s)`, base)
    for (const [phase, d] of Object.entries(report.during)) line(`${phase} (${d.backupSeconds} s, ${d.backupMB} MB)`, d, d.p99Ratio)
    console.log('written to bench/results/backup.json')
  } finally {
    if (gateway && gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway!.once('exit', resolve))
      gateway.kill('SIGTERM')
      await exited
    }
    if (flags.keep) console.log(`data kept in ${dataDir}`)
    else rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
