// npm run bench:history — order history at five years' scale, through the real HTTP API.
//
// 1. Generates 1,000,000 order summaries over 5 years ending now (about 550 a day) in a
//    fresh data dir, in batched transactions.
// 2. Starts a real gateway process on that data dir (loopback only) and measures the time
//    from spawn to its first answer of GET /api/v2/orders, and its RSS once started.
// 3. Measures p50/p99 latency, one request at a time over a keep-alive connection (a raw
//    socket client, bench/keep-alive-client.ts; the gateway's page cache off), of
//    (a) the first page unfiltered, (b) a one-day window, (c) order_type + location_name
//    over a month, (d) offset 5,000 and (e) today's statistics.
// Prints the figures and writes them to bench/results/history.json.
//
// Options: --rows N (default 1000000), --samples N per query (default 2000), --keep (keep
// the data dir and print its path).
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { historyListInput } from '../lib/api/history-input.ts'
import { freePort } from './free-port.ts'
import { startEntry, startFlags } from './start-flags.ts'
import { compiledCli } from '../bin/compiled-tree.js'
import { day, generateHistory, historyYears, prng } from './history-data.ts'
import { HistoryStore } from '../lib/history/store.ts'
import { KeepAliveClient } from './keep-alive-client.ts'

const root = path.resolve(import.meta.dirname, '..')
const { values: flags } = parseArgs({
  options: { rows: { type: 'string' }, samples: { type: 'string' }, keep: { type: 'boolean' }, probe: { type: 'string' }, data: { type: 'string' } },
})
const rows = Number(flags.rows ?? 1_000_000)
const samples = Number(flags.samples ?? 2000)
const warmup = Math.min(200, samples)
const timezone = 'UTC'
const targets = { startupMs: 1000, rssMB: 120, p99Ms: 5 }

const end = Date.now()
const start = end - historyYears * 365 * day

function generate(dataDir: string): { ms: number; fileMB: number } {
  const began = performance.now()
  const total = rows.toLocaleString('en-US')
  const { rows: done } = generateHistory(dataDir, rows, {
    end,
    onProgress: (written) => process.stderr.write(`\rgenerating ${written.toLocaleString('en-US')} / ${total}`),
  })
  process.stderr.write(`\rgenerated ${done.toLocaleString('en-US')} summaries${' '.repeat(20)}\n`)
  const fileMB = Number((statSync(path.join(dataDir, 'history.sqlite')).size / 1e6).toFixed(1))
  return { ms: performance.now() - began, fileMB }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

function get(port: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: target, agent }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    request.on('error', reject)
  })
}

function rssMB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Math.round(Number(match[1]) / 102.4) / 10 : NaN
}

const pad = (n: number) => String(n).padStart(2, '0')
const isoDay = (ms: number) => {
  const d = new Date(ms)
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
}

/** Query generators: each call gives the next URL, varied so no single answer is cached anywhere. */
function queries(): Record<string, () => string> {
  const random = prng(7)
  const randomDay = () => start + day + Math.floor(random() * (end - start - 2 * day))
  return {
    'a first page unfiltered': () => '/api/v2/orders',
    'b one-day window': () => {
      const d = randomDay()
      return `/api/v2/orders?created_after=${isoDay(d)}T00:00:00&created_before=${isoDay(d + day)}T00:00:00`
    },
    'c order_type + location_name over a month': () => {
      const d = new Date(randomDay())
      const from = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-01T00:00:00`
      const next = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1))
      const to = `${next.getUTCFullYear()}-${pad(next.getUTCMonth() + 1)}-01T00:00:00`
      const type = random() < 0.5 ? 'TO_GO' : 'ON_PREMISE'
      return `/api/v2/orders?order_type=${type}&location_name=${1 + Math.floor(random() * 40)}&created_after=${from}&created_before=${to}`
    },
    'd offset 5,000': () => '/api/v2/orders?offset=5000',
    "e today's statistics": () => '/api/v2/statistics',
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const round = (n: number, digits = 3) => Number(n.toFixed(digits))

/**
 * Where start-up time and memory go, each measured in a fresh process from its own start:
 * 'history' opens the store and answers a first page and today's statistics (the history
 * layer alone); 'modules' only imports the gateway's composition root (every module the
 * gateway loads, before it opens anything).
 */
async function probe(kind: string, dataDir: string): Promise<void> {
  if (kind === 'history') {
    const store = new HistoryStore(path.join(dataDir, 'history.sqlite'))
    store.list({}, { offset: 0, limit: 25 })
    store.statistics({ now: Date.now(), timezone, targetTime: 300 })
  } else if (kind === 'modules') {
    await import('../runtime/wiring/main.ts')
  }
  console.log(JSON.stringify({ ms: round(performance.now(), 1), rssMB: round(process.memoryUsage.rss() / 2 ** 20, 1) }))
}

async function runProbe(kind: string, dataDir: string): Promise<{ ms: number; rssMB: number }> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', import.meta.filename, '--probe', kind, '--data', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (chunk) => (out += chunk))
  await new Promise((resolve) => child.once('exit', resolve))
  return JSON.parse(out)
}

/** The same queries straight on the store, in this process: what the API layer adds is the rest. */
function measureStore(dataDir: string): Record<string, { p50Ms: number; p99Ms: number }> {
  const store = new HistoryStore(path.join(dataDir, 'history.sqlite'))
  const results: Record<string, { p50Ms: number; p99Ms: number }> = {}
  try {
    for (const [name, next] of Object.entries(queries())) {
      const times: number[] = []
      for (let i = 0; i < warmup + samples; i++) {
        const url = new URL(next(), 'http://bench')
        const began = performance.now()
        if (url.pathname.endsWith('/statistics')) store.statistics({ now: Date.now(), timezone, targetTime: 300 })
        else {
          const { filter, page } = historyListInput(url.searchParams, 'v2', timezone)
          store.list(filter, page)
        }
        if (i >= warmup) times.push(performance.now() - began)
      }
      times.sort((a, b) => a - b)
      results[name] = { p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)) }
    }
  } finally {
    store.close()
  }
  return results
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-history-'))
  let child: ReturnType<typeof spawn> | undefined
  try {
    const generated = generate(dataDir)
    const storeOnly = measureStore(dataDir)
    const historyAlone = await runProbe('history', dataDir)
    const modulesAlone = await runProbe('modules', dataDir)
    const port = await freePort()
    const configFile = path.join(dataDir, 'gateway.config.json')
    writeFileSync(
      configFile,
      JSON.stringify({
        host: '127.0.0.1',
        port,
        dataDir,
        mdns: { enabled: false },
        // HTTPS on as in production, on any free port (8443 may be another gateway's).
        tls: { port: 0 },
        // The benchmark measures history, not token checks: these two v2 routes are opened
        // the way a legacy integrator's would be (security.openRoutes, docs/api.md).
        security: { openRoutes: ['GET /api/v2/orders', 'GET /api/v2/statistics'] },
        // Queries (a) and (d) repeat one URL: without this, all but their first would be
        // answered from the page cache, and the store and presenting would go unmeasured.
        storage: { historyPageCacheBytes: 0 },
      }),
    )
    mkdirSync(path.join(root, 'bench/results'), { recursive: true })
    // As `npm start` and the systemd unit run it: with Node's compile cache, which a first
    // start fills and every restart (the case that matters: a gateway is power-cycled) uses.
    const env = { ...process.env, TZ: timezone, NODE_COMPILE_CACHE: path.join(dataDir, 'compile-cache') }
    // The compiled tree built beforehand, as deploy/install.sh does: no start measures a build.
    compiledCli(root)
    const startGateway = async () => {
      const spawnedAt = performance.now()
      const started = spawn(process.execPath, [...startFlags(), startEntry(), 'start', '--config', configFile], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env,
      })
      let answer: { status: number; body: string } | undefined
      while (!answer) {
        if (started.exitCode !== null) throw new Error(`gateway exited with ${started.exitCode}`)
        answer = await get(port, '/api/v2/orders?limit=1').catch(() => undefined)
        if (!answer) await new Promise((resolve) => setTimeout(resolve, 2))
      }
      return { child: started, first: answer, ms: performance.now() - spawnedAt }
    }
    const cold = await startGateway()
    const coldStartMs = cold.ms
    cold.child.kill('SIGTERM')
    await new Promise((resolve) => cold.child.once('exit', resolve))
    const restart = await startGateway()
    child = restart.child
    const first = restart.first
    const exited = new Promise((resolve) => child!.once('exit', resolve))
    const startupMs = restart.ms
    if (first.status !== 200) throw new Error(`first answer ${first.status}: ${first.body}`)
    const count = Number(JSON.parse(first.body).count)
    const rssAfterStartMB = rssMB(child.pid!)

    const loadAtQueries = round(os.loadavg()[0], 2)
    const results: Record<string, { p50Ms: number; p99Ms: number; maxMs: number; matching?: number }> = {}
    const client = await KeepAliveClient.connect(port)
    for (const [name, next] of Object.entries(queries())) {
      const times: number[] = []
      let matching = 0
      for (let i = 0; i < warmup + samples; i++) {
        const target = next()
        const began = performance.now()
        const response = await client.get(target)
        const elapsed = performance.now() - began
        if (response.status !== 200) throw new Error(`${target}: ${response.status} ${response.body}`)
        if (i >= warmup) {
          times.push(elapsed)
          const body = JSON.parse(response.body)
          matching += Number(body.count ?? body.statistics?.ordersToday ?? 0)
        }
      }
      times.sort((a, b) => a - b)
      results[name] = {
        p50Ms: round(percentile(times, 50)),
        p99Ms: round(percentile(times, 99)),
        maxMs: round(times.at(-1)!),
        matching: Math.round(matching / samples),
      }
    }
    client.close()
    const rssAfterQueriesMB = rssMB(child.pid!)
    child.kill('SIGTERM')
    await exited
    child = undefined

    const report = {
      date: new Date().toISOString(),
      machine: {
        nproc: os.availableParallelism(),
        cpu: os.cpus()[0]?.model ?? 'unknown',
        memoryGB: round(os.totalmem() / 2 ** 30, 1),
        node: process.version,
        platform: `${os.type()} ${os.release()}`,
        // Other work on the machine skews latency: the 1-minute load average when the
        // queries began and when they ended (2 means both cores were busy).
        loadAverage: { atQueries: loadAtQueries, atEnd: round(os.loadavg()[0], 2) },
      },
      data: { summaries: count, years: historyYears, generateSeconds: round(generated.ms / 1000, 1), fileMB: generated.fileMB },
      samplesPerQuery: samples,
      startupMs: round(startupMs, 1),
      coldStartMs: round(coldStartMs, 1),
      rssAfterStartMB: rssAfterStartMB,
      rssAfterQueriesMB: rssAfterQueriesMB,
      breakdown: {
        historyLayerAlone: historyAlone,
        gatewayModulesImportOnly: modulesAlone,
        nodeAndThisScript: await runProbe('node', dataDir),
      },
      queries: results,
      storeOnlyInProcess: storeOnly,
      targets,
      pass: startupMs < targets.startupMs && rssAfterStartMB < targets.rssMB && Object.values(results).every((r) => r.p99Ms < targets.p99Ms),
    }
    writeFileSync(path.join(root, 'bench/results/history.json'), `${JSON.stringify(report, null, 2)}\n`)
    console.log(
      `history benchmark: ${count.toLocaleString('en-US')} summaries over ${historyYears} years (${generated.fileMB} MB, generated in ${report.data.generateSeconds} s)`,
    )
    console.log(
      `machine: ${report.machine.nproc} × ${report.machine.cpu}, Node ${report.machine.node}, ` +
        `load average ${loadAtQueries} → ${report.machine.loadAverage.atEnd}`,
    )
    console.log(
      `start-up to first answer: ${report.startupMs} ms (target < ${targets.startupMs}); first start with an empty compile cache: ${report.coldStartMs} ms`,
    )
    console.log(`RSS after start-up: ${rssAfterStartMB} MB (target < ${targets.rssMB}); after the queries: ${rssAfterQueriesMB} MB`)
    console.log(
      `  of which: history layer alone (open + first page + statistics, fresh process) ${historyAlone.ms} ms, ${historyAlone.rssMB} MB; ` +
        `importing the gateway's modules alone ${modulesAlone.ms} ms, ${modulesAlone.rssMB} MB`,
    )
    console.log(`${'query'.padEnd(44)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}  matching`)
    for (const [name, r] of Object.entries(results)) {
      console.log(`${name.padEnd(44)} ${r.p50Ms.toFixed(3).padStart(8)} ${r.p99Ms.toFixed(3).padStart(8)} ${r.maxMs.toFixed(3).padStart(8)}  ${r.matching}`)
    }
    console.log(
      `store only, in process (p50/p99 ms): ${Object.entries(storeOnly)
        .map(([name, r]) => `${name[0]} ${r.p50Ms}/${r.p99Ms}`)
        .join(', ')}`,
    )
    console.log(report.pass ? 'all targets met' : 'TARGETS MISSED')
    console.log('written to bench/results/history.json')
    if (!report.pass) process.exitCode = 1
  } finally {
    if (child) child.kill('SIGTERM')
    agent.destroy()
    if (flags.keep) console.log(`data kept in ${dataDir}`)
    else rmSync(dataDir, { recursive: true, force: true })
  }
}

if (flags.probe) await probe(flags.probe, flags.data!)
else await main()
