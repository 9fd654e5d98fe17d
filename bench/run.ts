// npm run bench — the gateway's HTTP and WebSocket speed, each beside a baseline measured in
// the same run: a bare node:http/ws server (bench/bare-server.ts) answering the same bytes.
//
//   1. GET  /api/v2/activeorders with 50 active orders
//   2. GET  /api/v2/orders over 1,000,000 history summaries
//   3. WebSocket fan-out: 500 subscribers, each event's delivery time to every one of them
//   4. POST /api/v2/activeorders (durable writes: acknowledged after fsync)
//
// Reads: saturated throughput (autocannon, 50 connections) and the ratio to the bare server;
// then p99 at half the gateway's own saturated rate, from a paced open-loop client
// (bench/paced-client.ts, in a worker thread: evenly spaced requests, latency from when each
// was due; the bare server is measured at the same pace). Both in rounds that alternate
// which of the two goes first: the round with the median ratio, and each side's median p99
// at half rate, are reported. Writes: throughput (target 2,000/s).
// Server CPU per request (from /proc) is printed as well: it is steadier than throughput on
// a shared machine. Real processes on loopback; on a machine with 2+ cores the servers are
// pinned to CPU 0 and this process (the load) to CPU 1.
//
// 5. GET /api/v2/activeorders through the reference host (the @whatwg-node/server adapter,
//    `start --reference-host`), beside the same bare figures; the fast host must stay at 0.8×
//    bare or better there (issue 17).
//
// 6. Memory (bench/memory-bench.ts): idle RSS of the gateway, of the gateway and its radio
//    process, and their peak beside zigbee2mqtt's on a silent ember stick.
// 7. Start-up to first answer under a CPU cap that models a Raspberry Pi 4
//    (bench/startup-capped.ts).
//
// Environment: BENCH_LOG_LEVEL (the gateway's LOG_LEVEL, default info), BENCH_SECONDS (per
// measurement, default 10), BENCH_ROUNDS (rounds of each read comparison, default 3),
// BENCH_HISTORY_ROWS (default 1000000), BENCH_SUBSCRIBERS (default 500), BENCH_EVENTS
// (default 200). BENCH_QUICK=1 sets 3 s, 50,000 rows, 100 events and one round for a quick
// look; BENCH_ONLY (see below) runs some parts. Results: bench/results/http.json.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import type { Writable } from 'node:stream'
import autocannon, { type Result } from 'autocannon'
import { WebSocket } from 'ws'
import { sendControl } from '../runtime/control/control.ts'
import type { BareAnswers, RecordedAnswer } from './bare-server.ts'
import { compared, halfRate, inTurn, row, saturated, type Comparison, type Load, type LoadPair } from './comparison.ts'
import { fanout } from './fanout.ts'
import { freePort } from './free-port.ts'
import { generateHistory } from './history-data.ts'
import { memoryBench } from './memory-bench.ts'
import { startupBench } from './startup-capped.ts'
import { pacedLoadInWorker } from './paced-worker.ts'
import { residentBytes } from './process-memory.ts'
import { startEntry, startEnv, startFlags } from './start-flags.ts'

const root = path.resolve(import.meta.dirname, '..')
const quick = process.env.BENCH_QUICK === '1'
const seconds = Number(process.env.BENCH_SECONDS ?? (quick ? 3 : 10))
const historyRows = Number(process.env.BENCH_HISTORY_ROWS ?? (quick ? 50_000 : 1_000_000))
const subscriberCount = Number(process.env.BENCH_SUBSCRIBERS ?? 500)
const eventCount = Number(process.env.BENCH_EVENTS ?? (quick ? 100 : 200))
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 3)))
const connections = 50
const fanoutSize = { subscribers: subscriberCount, events: eventCount }
/** BENCH_ONLY=activeorders,orders,writes,reference: run only those comparisons, print them, record nothing (memory, startup: those benchmarks, recorded). */
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined
const targets = { fastHostRatio: 0.8, readRatio: 0.6, readP99Ms: 10, writesPerSecond: 2000, fanoutP99Ms: 50 }

// Read before this process pins itself to one CPU (which would make it see one).
const cores = os.availableParallelism()
const canPin = cores >= 2 && hasTaskset()
const round = (n: number, digits = 2) => Number(n.toFixed(digits))

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function spawnServer(args: string[], env: NodeJS.ProcessEnv = {}, stdout: 'pipe' | Writable = 'pipe'): ChildProcess {
  if (args[0] === startEntry()) args = [...startFlags(), ...args]
  const command = canPin ? 'taskset' : process.execPath
  const argv = canPin ? ['-c', '0', process.execPath, ...args] : args
  return spawn(command, argv, { stdio: ['ignore', stdout, 'inherit'], env: { ...process.env, ...env } })
}

/**
 * A reader for the gateway's log, as journald is on a box: a process of its own, on the
 * servers' CPU, so what reading the lines costs falls on the gateway's side. Read by this
 * process instead (on the load generator's CPU), each chunk took time from the paced client
 * in the gateway's windows only (the bare server logs nothing), and those pauses counted as
 * the gateway's latency.
 */
function logReader(): ChildProcess {
  return canPin ? spawn('taskset', ['-c', '0', 'cat'], { stdio: ['pipe', 'ignore', 'inherit'] }) : spawn('cat', { stdio: ['pipe', 'ignore', 'inherit'] })
}

/** utime + stime of a process, in microseconds. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100
}

function request(port: number, method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<RecordedAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => {
        const kept: Record<string, string> = {}
        for (const name of ['content-type', 'cache-control']) if (typeof res.headers[name] === 'string') kept[name] = res.headers[name] as string
        resolve({ status: res.statusCode ?? 0, headers: kept, body: text })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function load(pid: number, options: Parameters<typeof autocannon>[0], warmSeconds = Math.min(2, seconds)): Promise<Load> {
  if (warmSeconds > 0) await autocannon({ ...options, duration: warmSeconds })
  const cpuBefore = cpuMicros(pid)
  const result: Result = await autocannon({ ...options, duration: seconds })
  const cpu = cpuMicros(pid) - cpuBefore
  const requests = result.requests.total
  return {
    rps: Math.round(requests / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMicrosPerRequest: round(cpu / Math.max(1, requests), 1),
    requests,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}

/**
 * Open-loop load at a steady rate: request i is due at start + i/rate, spread evenly (not in
 * bursts, as autocannon's per-second rate limit sends them), and its latency counts from
 * when it was due, so a stall delays every request behind it (no coordinated omission). The
 * first 2 s at that pace are a warm-up, on the same connections, and are not recorded.
 */
async function paced(pid: number, port: number, path: string, headers: Record<string, string>, rate: number): Promise<Load> {
  let cpuBefore = 0
  const warmSeconds = Math.min(2, seconds)
  // What the saturated runs left in this process is collected now (npm run bench passes
  // --expose-gc), not on the load generator's CPU during a paced window.
  globalThis.gc?.()
  const result = await pacedLoadInWorker({ port, path, headers, rate, seconds, warmSeconds, connections, onMeasuring: () => (cpuBefore = cpuMicros(pid)) })
  const cpu = cpuMicros(pid) - cpuBefore
  const { latencies } = result
  const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0, 2)
  const requests = latencies.length + result.errors
  return {
    rps: Math.round(requests / result.seconds),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    cpuMicrosPerRequest: round(cpu / requests, 1),
    requests,
    non2xx: result.non2xx,
    errors: result.errors,
    clientStalls: { count: result.stalls.count, totalMs: round(result.stalls.totalMs, 1), maxMs: round(result.stalls.maxMs, 1) },
  }
}

async function compareRead(name: string, gateway: Server, bare: Server, target: string, headers: Record<string, string>): Promise<Comparison> {
  process.stderr.write(`${name}:`)
  const saturatedAt = (server: Server) => load(server.pid, { url: `http://127.0.0.1:${server.port}${target}`, connections, headers })
  const saturatedRounds: LoadPair[] = []
  for (let i = 0; i < rounds; i++) {
    process.stderr.write(` saturated ${i + 1}/${rounds} …`)
    saturatedRounds.push(
      await inTurn(
        i,
        () => saturatedAt(gateway),
        () => saturatedAt(bare),
      ),
    )
  }
  const comparison = saturated(saturatedRounds)
  const rate = Math.max(1, Math.round(comparison.gateway.rps / 2))
  const pacedAt = (server: Server) => paced(server.pid, server.port, target, headers, rate)
  const pacedRounds: LoadPair[] = []
  for (let i = 0; i < rounds; i++) {
    process.stderr.write(` half rate ${i + 1}/${rounds} …`)
    pacedRounds.push(
      await inTurn(
        i,
        () => pacedAt(gateway),
        () => pacedAt(bare),
      ),
    )
  }
  process.stderr.write(' done\n')
  return { ...comparison, ...halfRate(pacedRounds) }
}

async function compareWrite(gateway: Server, bare: Server, headers: Record<string, string>, firstName: number): Promise<Comparison> {
  // A restaurant has a few hundred active orders at most. Requests walk over 200 order
  // numbers; each first starts an order, later ones move it to another table, so every
  // request is a durable change (a write + a recorded change) and the active set stays real.
  let request = 0
  const activeOrders = 200
  const post = (port: number) => ({
    url: `http://127.0.0.1:${port}`,
    connections,
    requests: [
      {
        method: 'POST',
        path: '/api/v2/activeorders',
        headers: { ...headers, 'content-type': 'application/json' },
        setupRequest: (req: Record<string, unknown>) => {
          const n = request++
          const body = { name: firstName + (n % activeOrders), orderType: 'TO_GO', locationName: (Math.floor(n / activeOrders) % 40) + 1 }
          return { ...req, body: JSON.stringify(body) }
        },
      },
    ],
  })
  process.stderr.write('POST /api/v2/activeorders: bare server …')
  const bareLoad = await load(bare.pid, post(bare.port))
  process.stderr.write(' gateway …')
  const gatewayLoad = await load(gateway.pid, post(gateway.port))
  process.stderr.write(' done\n')
  return compared(gatewayLoad, bareLoad)
}

interface Server {
  child: ChildProcess
  pid: number
  port: number
}

async function startGateway(dataDir: string, extraArgs: string[] = []): Promise<Server> {
  const port = await freePort()
  const configFile = path.join(dataDir, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port, dataDir, mdns: { enabled: false }, tls: { port: 0 } })) // HTTPS on as in production, on any free port
  // Logs at info go to stdout, a pipe to a reader that drops them: their cost is measured.
  // With the flags and compile cache of `npm start` (heap ceiling, young generation size).
  const reader = logReader()
  const child = spawnServer(
    [startEntry(), 'start', '--config', configFile, ...extraArgs],
    { ...startEnv(), LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' },
    reader.stdin!,
  )
  // The reader ends when the gateway's end of the pipe closes, once this process lets go of its own.
  reader.stdin!.destroy()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}`)
    const answer = await request(port, 'GET', '/api/v2').catch(() => undefined)
    if (answer?.status === 200) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { child, pid: serverPid(child), port }
}

async function startBare(answersFile: string): Promise<Server> {
  const child = spawnServer([path.join(root, 'bench/bare-server.ts'), answersFile])
  const line = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk) => resolve(String(chunk))))
  return { child, pid: serverPid(child), port: (JSON.parse(line) as { port: number }).port }
}

/** The node process itself (under taskset it replaces taskset, keeping the pid). */
function serverPid(child: ChildProcess): number {
  return child.pid!
}

async function issueToken(dataDir: string, port: number): Promise<string> {
  await sendControl(dataDir, 'button.press')
  const answer = await request(port, 'GET', '/api/v2/accesstoken/generate?name=bench')
  const token = (JSON.parse(answer.body) as { token?: { token?: string } }).token?.token
  if (!token) throw new Error(`no token: ${answer.status} ${answer.body}`)
  return token
}

async function moreToken(port: number, auth: Record<string, string>, name: string): Promise<string> {
  const answer = await request(port, 'POST', `/api/v2/accesstoken/generate?name=${name}&scope=read`, auth)
  const token = (JSON.parse(answer.body) as { token?: { token?: string } }).token?.token
  if (!token) throw new Error(`no token: ${answer.status} ${answer.body}`)
  return token
}

function machine() {
  return {
    nproc: cores,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    pinned: canPin ? 'servers on CPU 0, load generator on CPU 1' : 'not pinned',
    loadAverage1m: round(os.loadavg()[0]),
  }
}

async function main(): Promise<void> {
  // Every thread of this process (-a: V8's and libuv's helpers started before this line too).
  if (canPin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'))
  const servers: Server[] = []
  try {
    process.stderr.write(`generating ${historyRows.toLocaleString('en-US')} history summaries …`)
    const generated = generateHistory(dataDir, historyRows)
    process.stderr.write(` ${generated.seconds} s\n`)
    const gateway = await startGateway(dataDir)
    servers.push(gateway)
    const token = await issueToken(dataDir, gateway.port)
    const auth = { authorization: `Bearer ${token}` }
    // The fan-out's 500 subscribers on one machine: 32 a token at most (the gateway's fair share).
    const fanoutTokens = [token, ...(await Promise.all(Array.from({ length: 15 }, (_, i) => moreToken(gateway.port, auth, `fanout-${i}`))))]
    // 48 orders here, one while recording the WebSocket frames and one recording a creation: 50.
    for (let name = 1; name <= 48; name++) {
      const answer = await request(
        gateway.port,
        'POST',
        '/api/v2/activeorders',
        { ...auth, 'content-type': 'application/json' },
        JSON.stringify({ name, orderType: 'TO_GO', locationName: (name % 40) + 1 }),
      )
      if (answer.status !== 201 && answer.status !== 200) throw new Error(`creating order ${name}: ${answer.status} ${answer.body}`)
    }

    // Record what the gateway answers, for the bare server to repeat byte for byte.
    const frames = await recordFrames(gateway.port, token)
    const created = await request(
      gateway.port,
      'POST',
      '/api/v2/activeorders',
      { ...auth, 'content-type': 'application/json' },
      JSON.stringify({ name: 50, orderType: 'TO_GO', locationName: 5 }),
    )
    const active = await request(gateway.port, 'GET', '/api/v2/activeorders', auth)
    const orders = await request(gateway.port, 'GET', '/api/v2/orders', auth)
    for (const answer of [created, active, orders]) if (answer.status >= 300) throw new Error(`recording: ${answer.status} ${answer.body}`)
    const answers: BareAnswers = {
      routes: { 'GET /api/v2/activeorders': active, 'GET /api/v2/orders': orders, 'POST /api/v2/activeorders': created },
      ws: frames,
      broadcastOn: 'POST /api/v2/activeorders',
    }
    const answersFile = path.join(dataDir, 'bare-answers.json')
    writeFileSync(answersFile, JSON.stringify(answers))
    const bare = await startBare(answersFile)
    servers.push(bare)

    if (only) {
      // A look at some parts while working on them: printed, not recorded.
      if (only.has('activeorders'))
        console.log(row('GET /api/v2/activeorders', await compareRead('GET /api/v2/activeorders', gateway, bare, '/api/v2/activeorders', auth)))
      if (only.has('orders')) console.log(row('GET /api/v2/orders', await compareRead('GET /api/v2/orders', gateway, bare, '/api/v2/orders', auth)))
      if (only.has('writes')) console.log(row('POST /api/v2/activeorders', await compareWrite(gateway, bare, auth, 3_000_000)))
      if (only.has('reference')) {
        const fastHost = compared(
          await load(gateway.pid, { url: `http://127.0.0.1:${gateway.port}/api/v2/activeorders`, connections, headers: auth }),
          await load(bare.pid, { url: `http://127.0.0.1:${bare.port}/api/v2/activeorders`, connections, headers: auth }),
        )
        console.log(row('GET /api/v2/activeorders', fastHost))
        console.log(row('  … reference host', await referenceHost(fastHost.bare)))
      }
      const resident = residentBytes(gateway.pid)
      console.log(`gateway memory: RSS ${round(resident.rss / 1048576, 1)} MB now, ${round(resident.peak / 1048576, 1)} MB at most`)
      return
    }
    const results = {
      activeOrders: await compareRead('GET /api/v2/activeorders (50 active)', gateway, bare, '/api/v2/activeorders', auth),
      orders: await compareRead(`GET /api/v2/orders (${historyRows.toLocaleString('en-US')} summaries)`, gateway, bare, '/api/v2/orders', auth),
      fanout: { bare: await fanout(bare.port, [token], 1_000_000, fanoutSize), gateway: await fanout(gateway.port, fanoutTokens, 2_000_000, fanoutSize) },
      writes: await compareWrite(gateway, bare, auth, 3_000_000),
      referenceHost: undefined as Comparison | undefined,
    }
    results.referenceHost = await referenceHost(results.activeOrders.bare)
    const pass = {
      activeOrdersRatio: results.activeOrders.throughputRatio >= targets.readRatio,
      fastHostRatio: results.activeOrders.throughputRatio >= targets.fastHostRatio,
      activeOrdersP99: (results.activeOrders.atHalfRate?.p99Ms ?? Infinity) < targets.readP99Ms,
      ordersRatio: results.orders.throughputRatio >= targets.readRatio,
      ordersP99: (results.orders.atHalfRate?.p99Ms ?? Infinity) < targets.readP99Ms,
      writes: results.writes.gateway.rps >= targets.writesPerSecond,
      fanout: results.fanout.gateway.p99Ms < targets.fanoutP99Ms && results.fanout.gateway.missing === 0,
    }
    const resident = residentBytes(gateway.pid)
    const memory = { rssMB: round(resident.rss / 1048576, 1), peakRssMB: round(resident.peak / 1048576, 1), flags: startFlags() }
    const report = { date: new Date().toISOString(), machine: machine(), seconds, connections, rounds, historyRows, targets, results, memory, pass }
    mkdirSync(path.join(root, 'bench/results'), { recursive: true })
    writeFileSync(path.join(root, 'bench/results/http.json'), `${JSON.stringify(report, null, 2)}\n`)

    const m = report.machine
    console.log(`machine: ${m.nproc} × ${m.cpu}, Node ${m.node}, ${m.pinned}, load average ${m.loadAverage1m}`)
    console.log(`${seconds} s per measurement, ${connections} connections; req/s and server CPU µs per request, bare vs gateway`)
    console.log(
      `${'route'.padEnd(34)} ${'bare/s'.padStart(8)} ${'gw/s'.padStart(8)} ${'ratio'.padStart(6)}  ${'b µs'.padStart(5)} ${'g µs'.padStart(5)} ${'ratio'.padStart(6)}  ${'p99 ms'.padStart(6)} p99 ms at half rate`,
    )
    console.log(row('GET /api/v2/activeorders', results.activeOrders))
    console.log(row('  … reference host (@whatwg-node)', results.referenceHost))
    console.log(row('GET /api/v2/orders', results.orders))
    console.log(row('POST /api/v2/activeorders', results.writes))
    const f = results.fanout
    console.log(
      `WebSocket fan-out, ${f.gateway.subscribers} subscribers × ${f.gateway.events} events: ` +
        `p50/p99/max ${f.gateway.p50Ms}/${f.gateway.p99Ms}/${f.gateway.maxMs} ms (bare ${f.bare.p50Ms}/${f.bare.p99Ms}/${f.bare.maxMs}), missing ${f.gateway.missing}`,
    )
    console.log(
      `targets: fast host ≥ ${targets.fastHostRatio}× bare on activeorders [${pass.fastHostRatio ? 'met' : 'MISSED'}], ` +
        `reads ≥ ${targets.readRatio}× bare [${pass.activeOrdersRatio && pass.ordersRatio ? 'met' : 'MISSED'}], ` +
        `p99 < ${targets.readP99Ms} ms at half rate [${pass.activeOrdersP99 && pass.ordersP99 ? 'met' : 'MISSED'}], ` +
        `writes ≥ ${targets.writesPerSecond}/s [${pass.writes ? 'met' : 'MISSED'}], fan-out p99 < ${targets.fanoutP99Ms} ms [${pass.fanout ? 'met' : 'MISSED'}]`,
    )
    console.log(`gateway memory: RSS ${memory.rssMB} MB now, ${memory.peakRssMB} MB at most (node ${memory.flags.join(' ')})`)
    console.log('written to bench/results/http.json')
    if (!Object.values(pass).every(Boolean)) process.exitCode = 1
  } finally {
    for (const server of servers.reverse()) {
      server.child.kill('SIGTERM')
      await new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)))
    }
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * The same gateway answering through the @whatwg-node/server adapter (`start --reference-host`),
 * with its own data dir and 50 active orders: saturated GET /api/v2/activeorders beside the
 * bare server's figures measured for the fast host.
 */
async function referenceHost(bare: Load): Promise<Comparison> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-reference-'))
  const server = await startGateway(dataDir, ['--reference-host'])
  try {
    const token = await issueToken(dataDir, server.port)
    const headers = { authorization: `Bearer ${token}` }
    for (let name = 1; name <= 50; name++) {
      await request(
        server.port,
        'POST',
        '/api/v2/activeorders',
        { ...headers, 'content-type': 'application/json' },
        JSON.stringify({ name, orderType: 'TO_GO', locationName: (name % 40) + 1 }),
      )
    }
    process.stderr.write('GET /api/v2/activeorders: reference host (@whatwg-node/server) …')
    const measured = await load(server.pid, { url: `http://127.0.0.1:${server.port}/api/v2/activeorders`, connections, headers })
    process.stderr.write(' done\n')
    return compared(measured, bare)
  } finally {
    server.child.kill('SIGTERM')
    await new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** The snapshot frame a subscriber gets, and the frame one created order broadcasts. */
async function recordFrames(port: number, token: string): Promise<BareAnswers['ws']> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v2/websocket`, { perMessageDeflate: false })
  const frames: string[] = []
  const got = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => (frames.length >= count ? resolve() : setTimeout(check, 5))
      check()
    })
  socket.on('message', (data) => frames.push(data.toString()))
  await new Promise((resolve) => socket.once('open', resolve))
  socket.send(JSON.stringify({ accesstoken: token }))
  await got(1)
  await request(
    port,
    'POST',
    '/api/v2/activeorders',
    { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    JSON.stringify({ name: 999_999, orderType: 'TO_GO' }),
  )
  await got(2)
  socket.terminate()
  return { snapshot: frames[0], event: frames[1] }
}

// The memory benchmark (bench/memory-bench.ts, bench/results/memory.json) and start-up under
// a CPU cap (bench/startup-capped.ts, bench/results/startup.json) after the HTTP figures,
// with their servers gone; BENCH_ONLY=memory or BENCH_ONLY=startup runs one alone.
const ownParts = ['memory', 'startup']
if (!only || [...only].some((part) => !ownParts.includes(part))) await main()
if (!only || only.has('memory')) {
  if (!(await memoryBench())) process.exitCode = 1
}
if (!only || only.has('startup')) {
  // Skipped (no sysbench, no cgroup) is not a missed target: the line says what is missing.
  if ((await startupBench()) === false) process.exitCode = 1
}
