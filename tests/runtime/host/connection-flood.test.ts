// A handful of hostile devices on the restaurant's LAN hold every connection they can and
// re-open each one the gateway closes (issue 25: five addresses holding 1,024 idle
// connections locked everyone out). The real gateway on loopback, the flood in a child
// process (tests/helpers/connection-flooder.ts) from 127.0.2.x / 127.0.3.x addresses standing
// in for LAN hosts: a new client, a board with a token behind a flooding address, and a
// WebSocket board are all served. The machine may be loaded: each check is "served", with a
// generous bound on the attempts; the time the successful attempt took is reported.
import { spawn } from 'node:child_process'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { WebSocket } from 'ws'
import { parseConfig } from '../../../lib/config.ts'
import { startGateway, type RunningGateway } from '../../../runtime/wiring/main.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'

const flooderPath = fileURLToPath(new URL('../../helpers/connection-flooder.ts', import.meta.url))

interface FloodCounts {
  connected: number
  open: number
  closed: number
  errors: number
}

async function gateway(t: Test): Promise<RunningGateway> {
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir: t.testdir(), mdns: { enabled: false }, radio: { kind: 'simulated' } })
  const running = await startGateway({ config, log: memoryLogger('error').log })
  t.teardown(() => running.stop())
  return running
}

/** Starts the flood; resolves once it has opened `connections` and the gateway has closed some. */
async function flood(t: Test, plan: { port: number; addresses: string[]; perAddress: number; request?: string }) {
  // Over a thousand sockets: the flooder raises its descriptor limit first where it may (root
  // can raise the hard limit too; otherwise Node raises the soft limit to the hard one).
  const command = `ulimit -n 65536 2>/dev/null; exec "$0" "$@"`
  const child = spawn(
    'sh',
    ['-c', command, process.execPath, '--disable-warning=ExperimentalWarning', flooderPath, JSON.stringify({ ...plan, reconnectMs: 5 })],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  let latest: FloodCounts = { connected: 0, open: 0, closed: 0, errors: 0 }
  let mostOpen = 0
  let buffer = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk
    const lines = buffer.split('\n')
    buffer = lines.pop()!
    for (const line of lines) if (line) latest = JSON.parse(line) as FloodCounts
    mostOpen = Math.max(mostOpen, latest.open)
  })
  t.teardown(() => {
    child.stdin!.end()
    child.kill()
  })
  const total = plan.addresses.length * plan.perAddress
  await until(() => latest.connected >= total && latest.closed >= 100, `the flood's ${total} connections opened and some closed by the gateway`, 60_000)
  return { counts: () => latest, mostOpen: () => mostOpen, total }
}

const addresses = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`)

interface Attempt {
  status?: number
  body?: string
  error?: string
  ms: number
  reused?: boolean
}

function request(port: number, from: string, path: string, headers: Record<string, string> = {}, agent: http.Agent | false = false): Promise<Attempt> {
  const startedAt = performance.now()
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, localAddress: from, headers, agent, timeout: 5_000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode, body, ms: performance.now() - startedAt, reused: req.reusedSocket }))
      res.on('error', (error) => resolve({ error: error.message, ms: performance.now() - startedAt }))
    })
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')))
    req.on('error', (error) => resolve({ error: error.message, ms: performance.now() - startedAt }))
  })
}

/** Tries up to `attempts` times; the first 200, and every attempt made. */
async function servedWithin(attempts: number, attempt: () => Promise<Attempt>): Promise<{ served?: Attempt; tries: Attempt[] }> {
  const tries: Attempt[] = []
  for (let i = 0; i < attempts; i++) {
    const result = await attempt()
    tries.push(result)
    if (result.status === 200) return { served: result, tries }
  }
  return { tries }
}

const describe = (tries: Attempt[]) => tries.map((a) => `${a.status ?? a.error} in ${Math.round(a.ms)} ms`).join(', ')

t.test('five addresses holding 1,030 connections: a new address, a board behind a flooding address and a WebSocket board are served', async (t) => {
  const running = await gateway(t)
  const { port } = running
  const token = (await running.services.tokens.issue('board')).token
  const attack = await flood(t, { port, addresses: addresses('127.0.2.', 5), perAddress: 206 })

  const newcomer = await servedWithin(5, () => request(port, '127.0.0.88', '/api/v2'))
  t.ok(newcomer.served, `a client from a sixth address is served (${describe(newcomer.tries)})`)
  t.ok((newcomer.served?.ms ?? Infinity) < 5_000, `at attempt ${newcomer.tries.length}, answered in ${Math.round(newcomer.served?.ms ?? -1)} ms`)

  // A board on the same address as a flooding device: in once it authenticates, and its
  // keep-alive connection is never the one shed afterwards.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const auth = { authorization: `Bearer ${token}` }
  const board = await servedWithin(5, () => request(port, '127.0.2.1', '/api/v2/activeorders', auth, agent))
  t.ok(board.served, `the board behind 127.0.2.1 is served (${describe(board.tries)})`)
  const later: Attempt[] = []
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    later.push(await request(port, '127.0.2.1', '/api/v2/activeorders', auth, agent))
  }
  t.ok(
    later.every((a) => a.status === 200 && a.reused),
    `its next requests reuse the same connection while the flood goes on (${later.map((a) => `${a.status ?? a.error}${a.reused ? ' reused' : ' new'}`).join(', ')})`,
  )

  for (const from of ['127.0.0.88', '127.0.2.2']) {
    const frames = await webSocketBoard(t, port, from, token)
    t.match(frames[0], { type: 'ACTIVE_ORDERS' }, `a WebSocket board from ${from} authenticates and gets the snapshot`)
  }
  t.ok(
    attack.counts().connected >= attack.total,
    `the flood opened ${attack.counts().connected} connections (${attack.mostOpen()} open at once), ${attack.counts().closed} closed by the gateway`,
  )
})

t.test('a full box (twelve addresses at their cap, each having sent a request): a new address is served', async (t) => {
  const running = await gateway(t)
  const { port } = running
  const attack = await flood(t, { port, addresses: addresses('127.0.3.', 12), perAddress: 64, request: 'GET /api/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' })
  t.ok(attack.mostOpen() >= 500, `the flood held ${attack.mostOpen()} connections at once: the box is full`)
  const newcomer = await servedWithin(5, () => request(port, '127.0.0.89', '/api/v2'))
  t.ok(newcomer.served, `a client from a new address is served (${describe(newcomer.tries)})`)
})

function webSocketBoard(t: Test, port: number, from: string, token: string): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v2/websocket`, { localAddress: from })
    t.teardown(() => socket.terminate())
    const frames: unknown[] = []
    const timer = setTimeout(() => reject(new Error(`no snapshot for the WebSocket board from ${from}`)), 15_000)
    socket.on('open', () => socket.send(JSON.stringify({ accesstoken: token })))
    socket.on('message', (data) => {
      frames.push(JSON.parse(data.toString()))
      clearTimeout(timer)
      resolve(frames)
    })
    socket.on('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)))
    socket.on('error', reject)
  })
}
