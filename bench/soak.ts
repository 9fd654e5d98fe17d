// npm run bench:soak [-- --minutes N] — a real gateway process (flags as `npm start` has
// them, heap ceiling included) under a steady mixed load for N minutes (default 10):
//
//   - orders created, located, paged and cleared over HTTP (v2, and the simulator's
//     trackers for paging), 150 changes a second from 2 clients (as far as the gateway keeps
//     up) and 40 reads a second (history pages, statistics, the active list, the status),
//     over keep-alive connections;
//   - 50 WebSocket subscribers for the whole run, and one more every 5 s that stays 10 s;
//   - one webhook receiver (loopback) registered for every change.
//
// Each minute: the gateway's RSS and heap (GET /api/v2/gateway), open descriptors
// (/proc/<pid>/fd), the data dir's size, and the load's own counts. At the end, once the
// outbox has drained: every acknowledged change arrived at the webhook receiver and at every
// subscriber that was there for it, with no gap and no duplicate in seq. Exit code 1 if not,
// or if RSS ever reached 200 MB. Results: bench/results/soak.json.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { WebSocket } from 'ws'
import { sendControl } from '../runtime/control/control.ts'
import { freePort } from './free-port.ts'
import { residentBytes } from './process-memory.ts'
import { startEntry, startEnv, startFlags } from './start-flags.ts'

const root = path.resolve(import.meta.dirname, '..')
const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' } } })
const minutes = Number(values.minutes)
const rssTargetBytes = 200 * 1024 * 1024
const subscriberCount = 50
const changesPerSecond = 150
const readsPerSecond = 40

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })

function call(port: number, method: string, target: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const request = http.request({ host: '127.0.0.1', port, method, path: target, headers, agent }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }))
    })
    request.on('error', reject)
    request.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

function dirBytes(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) total += dirBytes(file)
    else if (entry.isFile()) total += statSync(file).size
  }
  return total
}

const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10

/** A change the gateway acknowledged: which order and what kind. */
type Expected = { uuid: string; type: string }
type Seen = { seq: number; uuid: string; type: string }

/** What a subscriber or the receiver got: in arrival order. */
class Stream {
  readonly seen: Seen[] = []
  readonly keys = new Set<string>()
  /** The seq of the subscriber's snapshot (0: from the start). */
  readonly from: number
  constructor(from: number) {
    this.from = from
  }
  add(seen: Seen): void {
    this.seen.push(seen)
    this.keys.add(`${seen.uuid} ${seen.type}`)
  }
  /** Gaps and repeats in seq (a webhook may repeat a seq only as a redelivery). */
  problems(allowRepeats: boolean): string[] {
    const problems: string[] = []
    const seqs = [...new Set(this.seen.map((s) => s.seq))].sort((a, b) => a - b)
    if (!allowRepeats && seqs.length !== this.seen.length) problems.push(`${this.seen.length - seqs.length} repeated frames`)
    for (let i = 1; i < seqs.length; i++) if (seqs[i] !== seqs[i - 1] + 1) problems.push(`gap ${seqs[i - 1]} → ${seqs[i]}`)
    return problems.slice(0, 5)
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gw-soak-'))
  const port = await freePort()
  const configFile = path.join(dataDir, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port, dataDir, mdns: { enabled: false }, webhooks: { allowLoopback: true }, tls: { port: 0 } }))
  const flags = startFlags()
  const child = spawn(process.execPath, [...flags, startEntry(), 'start', '--config', configFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...startEnv(), LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'info' },
  })
  child.stdout!.resume()
  const sockets: WebSocket[] = []
  const receiver = http.createServer()
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}`)
      if (
        await call(port, 'GET', '/api/v2', '').then(
          (r) => r.status === 200,
          () => false,
        )
      )
        break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await sendControl(dataDir, 'button.press')
    const token = (await call(port, 'GET', '/api/v2/accesstoken/generate?name=soak', '')).body.token.token as string

    // The webhook receiver.
    const hook = new Stream(0)
    receiver.on('request', (request, response) => {
      let text = ''
      request.on('data', (chunk) => (text += chunk))
      request.on('end', () => {
        if (request.method === 'POST') {
          const body = JSON.parse(text) as { seq: number; uuid: string; changeType: string }
          hook.add({ seq: body.seq, uuid: body.uuid, type: body.changeType })
        }
        response.end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
    const registered = await call(port, 'POST', '/api/v2/register', token, { http_client: hookUrl })
    if (registered.status >= 300) throw new Error(`register: ${JSON.stringify(registered.body)}`)

    // Subscribers: each records every change frame after its snapshot.
    const subscribers: { stream: Stream; left?: number }[] = []
    const subscribe = (leaveAfterMs?: number) =>
      new Promise<void>((resolve, reject) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v2/websocket`, { perMessageDeflate: false })
        sockets.push(socket)
        let entry: { stream: Stream; left?: number } | undefined
        socket.once('error', reject)
        socket.once('open', () => socket.send(JSON.stringify({ accesstoken: token })))
        socket.on('message', (data) => {
          const frame = JSON.parse(data.toString()) as { type: string; seq: number; uuid: string }
          if (frame.type === 'ACTIVE_ORDERS') {
            entry = { stream: new Stream(frame.seq) }
            subscribers.push(entry)
            if (leaveAfterMs) setTimeout(() => ((entry!.left = Date.now()), socket.close()), leaveAfterMs)
            resolve()
          } else entry?.stream.add({ seq: frame.seq, uuid: frame.uuid, type: frame.type })
        })
      })
    for (let i = 0; i < subscriberCount; i++) await subscribe()

    // The load.
    const expected: Expected[] = []
    const counts = { changes: 0, reads: 0, refused: 0, errors: 0 }
    const refusedCodes: Record<string, number> = {}
    const active = new Map<number, string>() // name → uuid (API orders)
    const simActive = new Map<number, string>() // tracker → uuid
    let nextName = 1000
    // `changed`: whether this answer means a change was recorded (v2 create/locate answer
    // 1009 "was started" / 1010 "was located" for an order that already existed).
    const record = (answer: { status: number; body: any }, type: string | undefined, uuid?: string, changed = (code: number) => !(code > 1000)) => {
      if (answer.status >= 300) {
        const code = String(answer.body?.returnCode ?? answer.status)
        refusedCodes[code] = (refusedCodes[code] ?? 0) + 1
        return void counts.refused++
      }
      counts.changes++
      const id = uuid ?? answer.body?.activeorder?.uuid
      if (type && id && changed(answer.body.returnCode)) expected.push({ uuid: id, type })
    }
    const change = async () => {
      const roll = Math.random()
      if (roll < 0.15) {
        const tracker = 1 + Math.floor(Math.random() * 20)
        const uuid = simActive.get(tracker)
        if (!uuid) {
          const started = await call(port, 'POST', '/api/v2/simulator/start', token, { tracker })
          const made = started.body?.activeorder?.uuid
          if (started.status < 300 && made) simActive.set(tracker, made)
          return record(started, 'ORDER_CREATED', made)
        }
        if (Math.random() < 0.6) return record(await call(port, 'POST', `/api/v2/activeorders/${uuid}/page`, token, { tracking: false }), 'ORDER_PAGED', uuid)
        simActive.delete(tracker)
        return record(await call(port, 'DELETE', `/api/v2/activeorders/${uuid}`, token), 'ORDER_CLEARED', uuid)
      }
      if (active.size < 150 || roll < 0.45) {
        const name = nextName++
        if (nextName > 90_000) nextName = 1000
        const created = await call(port, 'POST', '/api/v2/activeorders', token, { name, orderType: Math.random() < 0.5 ? 'TO_GO' : 'ON_PREMISE' })
        if (created.status < 300) active.set(name, created.body.activeorder.uuid)
        return record(created, 'ORDER_CREATED')
      }
      const [name, uuid] = [...active.entries()][Math.floor(Math.random() * active.size)]
      if (roll < 0.7) {
        const located = await call(port, 'POST', '/api/v2/activeorders', token, {
          name,
          orderType: 'ON_PREMISE',
          locationName: 1 + Math.floor(Math.random() * 40),
        })
        // A started order becoming located is a change for sure (1009); moving tables may be none.
        return record(located, 'ORDER_MODIFIED', uuid, (code) => code === 1009)
      }
      active.delete(name)
      return record(await call(port, 'DELETE', `/api/v2/activeorders/${uuid}`, token), 'ORDER_CLEARED', uuid)
    }
    const read = async () => {
      const roll = Math.random()
      const target =
        roll < 0.4
          ? `/api/v2/orders?limit=50&offset=${Math.floor(Math.random() * 500)}`
          : roll < 0.6
            ? '/api/v2/statistics'
            : roll < 0.9
              ? '/api/v2/activeorders'
              : '/api/v2/gateway'
      const answer = await call(port, 'GET', target, token)
      if (answer.status >= 300) counts.errors++
      else counts.reads++
    }
    // Changes one after another (so "acknowledged" has one order), reads beside them.
    let running = true
    const paced = async (perSecond: number, op: () => Promise<void>, parallel: number) => {
      const start = Date.now()
      let done = 0
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (running) {
            const due = start + (done++ * 1000) / perSecond
            const wait = due - Date.now()
            if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
            await op().catch(() => void counts.errors++)
          }
        }),
      )
    }
    const churn = setInterval(() => void subscribe(10_000).catch(() => void counts.errors++), 5_000)
    const began = Date.now()
    const samples: Record<string, number>[] = []
    const sample = async (minute: number) => {
      const memory = (await call(port, 'GET', '/api/v2/gateway', token)).body.gatewayStatus.memory
      const row = {
        minute,
        rssMB: mb(memory.rss),
        heapUsedMB: mb(memory.heapUsed),
        heapLimitMB: mb(memory.heapLimit),
        fds: fdCount(child.pid!),
        dataDirMB: mb(dirBytes(dataDir)),
        changes: counts.changes,
        reads: counts.reads,
        refused: counts.refused,
        errors: counts.errors,
        webhookEvents: hook.seen.length,
      }
      samples.push(row)
      console.log(
        Object.entries(row)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      )
    }
    await sample(0)
    const load = Promise.all([paced(changesPerSecond, change, 2), paced(readsPerSecond, read, 4)])
    for (let minute = 1; minute <= minutes; minute++) {
      await new Promise((resolve) => setTimeout(resolve, began + minute * 60_000 - Date.now()))
      await sample(minute)
    }
    running = false
    clearInterval(churn)
    await load
    const peakRss = residentBytes(child.pid!).peak

    // Drain: every change the gateway recorded reaches the receiver and the subscribers.
    const backlog = async () => (await call(port, 'GET', '/api/v2/register', token)).body.webhooks[0].backlog as number
    const drainDeadline = Date.now() + 60_000
    while ((await backlog()) > 0 && Date.now() < drainDeadline) await new Promise((resolve) => setTimeout(resolve, 200))
    await new Promise((resolve) => setTimeout(resolve, 1000))

    // Every acknowledged change reached the receiver; its seq tells which subscribers were owed it.
    const seqOf = new Map(hook.seen.map((s) => [`${s.uuid} ${s.type}`, s.seq]))
    const hookMissing = expected.filter((e) => !seqOf.has(`${e.uuid} ${e.type}`)).length
    let wsMissing = 0
    const wsProblems: string[] = []
    for (const s of subscribers) {
      // Owed: every change after its snapshot, up to the last it saw when it left early.
      const until = s.left === undefined ? Infinity : Math.max(s.stream.from, ...s.stream.seen.map((f) => f.seq))
      for (const e of expected) {
        const seq = seqOf.get(`${e.uuid} ${e.type}`)
        if (seq !== undefined && seq > s.stream.from && seq <= until && !s.stream.keys.has(`${e.uuid} ${e.type}`)) wsMissing++
      }
      wsProblems.push(...s.stream.problems(false))
    }
    const result = {
      date: new Date().toISOString(),
      minutes,
      flags,
      machine: { nproc: os.availableParallelism(), loadAverage1m: os.loadavg()[0], node: process.version },
      samples,
      peakRssMB: mb(peakRss),
      acknowledgedChanges: expected.length,
      refusedCodes,
      webhook: { events: hook.seen.length, missing: hookMissing, problems: hook.problems(true) },
      websocket: { subscribers: subscribers.length, missing: wsMissing, problems: wsProblems.slice(0, 5) },
    }
    mkdirSync(path.join(root, 'bench/results'), { recursive: true })
    writeFileSync(path.join(root, 'bench/results/soak.json'), `${JSON.stringify(result, null, 2)}\n`)
    console.log(`refused changes by returnCode: ${JSON.stringify(refusedCodes)}`)
    console.log(`peak RSS ${result.peakRssMB} MB (target < 200 MB); ${expected.length} acknowledged changes`)
    console.log(`webhook: ${hook.seen.length} events, missing ${hookMissing}, ${result.webhook.problems.join('; ') || 'no gap'}`)
    console.log(`websocket: ${subscribers.length} subscribers, missing ${wsMissing}, ${result.websocket.problems.join('; ') || 'no gap, no duplicate'}`)
    if (hookMissing || wsMissing || result.webhook.problems.length || wsProblems.length || peakRss >= rssTargetBytes) process.exitCode = 1
  } finally {
    for (const socket of sockets) socket.terminate()
    agent.destroy()
    receiver.close()
    child.kill('SIGTERM')
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
