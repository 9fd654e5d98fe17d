// Clients on a test's LAN, run as one process inside the test's network namespace
// (tests/helpers/netns.ts), where the test itself cannot open sockets. The test writes one
// JSON command a line on stdin; the answer is one JSON line on stdout with the same id:
//   {id, kind: 'http', url, from, method?, headers?, body?, ciphers?}  → {id, status, contentType, body, ms} | {id, error, ms}
//     (an https: URL is fetched without checking the certificate; `ciphers` limits the offer, TLS 1.2 only)
//   {id, kind: 'ws', url, from, token, count?}  → {id, opened, frames: [first frame of each]}; the sockets stay open
//   {id, kind: 'silent', host, port}  → {id, port}: a listener that accepts connections and never answers
//   {id, kind: 'receiver', host, port}  → {id, port}: an HTTP server answering 200 to everything
//   {id, kind: 'burst', url, from, count, concurrency}  → {id, statuses: {status: count}}: keep-alive GETs
// Every request has a timeout (timeoutMs, 5 s by default). Exits when its stdin closes.
// Usage: node lan-client.ts
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import readline from 'node:readline'
import { WebSocket } from 'ws'

interface Command {
  id: number
  kind: 'http' | 'ws' | 'silent' | 'receiver' | 'burst'
  url: string
  from: string
  method?: string
  headers?: Record<string, string>
  body?: string
  ciphers?: string
  token?: string
  count?: number
  host?: string
  port?: number
  timeoutMs?: number
  concurrency?: number
}

const held: { destroy(): void }[] = []
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`)

function request(command: Command): Promise<Record<string, unknown>> {
  const startedAt = performance.now()
  const ms = () => Math.round(performance.now() - startedAt)
  const url = new URL(command.url)
  const secure = url.protocol === 'https:'
  const options: https.RequestOptions = {
    method: command.method ?? 'GET',
    host: url.hostname,
    port: url.port,
    path: url.pathname + url.search,
    localAddress: command.from,
    headers: command.headers,
    agent: false,
    timeout: command.timeoutMs ?? 5_000,
    ...(secure ? { rejectUnauthorized: false, ...(command.ciphers ? { ciphers: command.ciphers, maxVersion: 'TLSv1.2' as const } : {}) } : {}),
  }
  return new Promise((resolve) => {
    const req = (secure ? https : http).request(options, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode, contentType: res.headers['content-type'] ?? null, body, ms: ms() }))
      res.on('error', (error) => resolve({ error: error.message, ms: ms() }))
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${command.timeoutMs ?? 5_000} ms`)))
    req.on('error', (error) => resolve({ error: error.message, ms: ms() }))
    req.end(command.body)
  })
}

/** Opens `count` WebSocket connections with the token; each reports its first frame or its refusal. */
async function webSockets(command: Command): Promise<Record<string, unknown>> {
  const one = () =>
    new Promise<unknown>((resolve) => {
      const socket = new WebSocket(command.url, { localAddress: command.from })
      held.push({ destroy: () => socket.terminate() })
      const timer = setTimeout(() => resolve({ error: 'no frame within the timeout' }), command.timeoutMs ?? 10_000)
      socket.on('open', () => socket.send(JSON.stringify({ accesstoken: command.token })))
      socket.once('message', (data) => {
        clearTimeout(timer)
        resolve(JSON.parse(data.toString()))
      })
      socket.on('unexpected-response', (_req, res) => {
        clearTimeout(timer)
        resolve({ refused: res.statusCode })
      })
      socket.on('error', (error) => {
        clearTimeout(timer)
        resolve({ error: error.message })
      })
    })
  // Eight at a time: more unauthenticated at once from one address would close the oldest.
  const frames: unknown[] = []
  for (let left = command.count ?? 1; left > 0; left -= 8) frames.push(...(await Promise.all(Array.from({ length: Math.min(8, left) }, one))))
  return { frames }
}

function silent(command: Command): Promise<Record<string, unknown>> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined)
    held.push(socket)
  })
  held.push({ destroy: () => server.close() })
  return new Promise((resolve) => server.listen(command.port ?? 0, command.host, () => resolve({ port: (server.address() as net.AddressInfo).port })))
}

function receiver(command: Command): Promise<Record<string, unknown>> {
  const server = http.createServer((req, res) => {
    req.resume()
    res.end()
  })
  held.push({ destroy: () => server.close() })
  return new Promise((resolve) => server.listen(command.port ?? 0, command.host, () => resolve({ port: (server.address() as net.AddressInfo).port })))
}

/** `count` GETs of one URL over `concurrency` keep-alive connections; the statuses seen. */
async function burst(command: Command): Promise<Record<string, unknown>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: command.concurrency ?? 4 })
  const url = new URL(command.url)
  const statuses: Record<string, number> = {}
  let left = command.count ?? 1
  const one = () =>
    new Promise<void>((resolve) => {
      const req = http.get(
        { host: url.hostname, port: url.port, path: url.pathname + url.search, localAddress: command.from, agent, timeout: 10_000 },
        (res) => {
          res.resume()
          res.on('end', () => {
            statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1
            resolve()
          })
        },
      )
      req.on('timeout', () => req.destroy(new Error('timeout')))
      req.on('error', (error) => {
        statuses[error.message] = (statuses[error.message] ?? 0) + 1
        resolve()
      })
    })
  const worker = async () => {
    while (left > 0) {
      left--
      await one()
    }
  }
  await Promise.all(Array.from({ length: command.concurrency ?? 4 }, worker))
  agent.destroy()
  return { statuses }
}

const runners = { http: request, ws: webSockets, silent, receiver, burst }

const lines = readline.createInterface({ input: process.stdin })
lines.on('line', (line) => {
  const command = JSON.parse(line) as Command
  runners[command.kind](command).then(
    (result) => say({ id: command.id, ...result }),
    (error: unknown) => say({ id: command.id, error: String(error) }),
  )
})
lines.on('close', () => {
  for (const item of held) item.destroy()
  process.exit(0)
})
