// Real loopback peers for the webhook and WebSocket tests: a receiver that records every
// request and answers as scripted, a canary that counts every TCP connection it gets, and
// a way to wait for I/O to land (polling real time: network I/O is not on the Clock).
import http from 'node:http'
import net from 'node:net'

export interface ReceivedRequest {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
}

export interface Receiver {
  url: string
  port: number
  /** Every request, answered with any status. */
  requests: ReceivedRequest[]
  /** POST bodies parsed, in arrival order. */
  posts(): any[]
  /** Status to answer with (per request); default 200. */
  respond: (request: ReceivedRequest) => number | { status: number; headers?: Record<string, string> }
  close(): Promise<void>
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    requests: [],
    posts: () => receiver.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body)),
    respond: () => 200,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      const answer = receiver.respond(request)
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer
      receiver.requests.push(request)
      res.writeHead(status, headers)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.port = (server.address() as net.AddressInfo).port
  receiver.url = `http://127.0.0.1:${receiver.port}${path}`
  return receiver
}

export interface Canary {
  port: number
  /** TCP connections accepted so far. */
  connections: number
  close(): Promise<void>
}

/** Listens on every loopback form (IPv4 and IPv6 when available) and counts connections. */
export async function startCanary(): Promise<Canary> {
  const canary: Canary = { port: 0, connections: 0, close: async () => {} }
  const sockets = new Set<net.Socket>()
  const onConnection = (socket: net.Socket) => {
    canary.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
  }
  const v4 = net.createServer(onConnection)
  await new Promise<void>((resolve) => v4.listen(0, '0.0.0.0', resolve))
  canary.port = (v4.address() as net.AddressInfo).port
  const v6 = net.createServer(onConnection)
  const v6ok = await new Promise<boolean>((resolve) => {
    v6.once('error', () => resolve(false))
    v6.listen({ port: canary.port, host: '::1', ipv6Only: true }, () => resolve(true))
  })
  canary.close = async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((resolve) => v4.close(() => resolve()))
    if (v6ok) await new Promise<void>((resolve) => v6.close(() => resolve()))
  }
  return canary
}

/** Polls until the predicate holds (real time: it waits for sockets, not for the Clock). */

/** Kept here for the event tests that import it with the receiver helpers. */
export { sampleOrder } from './orders.ts'
