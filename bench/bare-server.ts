// The baseline of `npm run bench`: a bare node:http server (and a bare `ws` server on the
// same port) that answers each route with the very bytes the gateway gave for it, recorded
// in the same run. It parses what the gateway would have to parse (the JSON body of a POST)
// and nothing more, so the ratio gateway/bare is what routing, auth, envelopes, services
// and logging cost. Usage: node bench/bare-server.ts <answers.json> (prints the port).
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { WebSocketServer, type WebSocket } from 'ws'

export interface RecordedAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

export interface BareAnswers {
  /** "GET /api/v2/activeorders" → the gateway's answer. */
  routes: Record<string, RecordedAnswer>
  /** The frame a subscriber gets after authenticating, and the frame each created order broadcasts. */
  ws: { snapshot: string; event: string }
  /** The route whose POST also broadcasts the event frame (as creating an order does). */
  broadcastOn: string
}

const answers = JSON.parse(readFileSync(process.argv[2], 'utf8')) as BareAnswers
const prepared = new Map(
  Object.entries(answers.routes).map(([key, answer]) => [
    key,
    { status: answer.status, headers: { ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)) }, body: answer.body },
  ]),
)
const subscribers = new Set<WebSocket>()

const server = http.createServer((req, res) => {
  const key = `${req.method} ${(req.url ?? '/').split('?')[0]}`
  const answer = prepared.get(key)
  if (!answer) {
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
    res.end('{"status":404}')
    return
  }
  if (req.method !== 'POST') {
    res.writeHead(answer.status, answer.headers)
    res.end(answer.body)
    return
  }
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'))
    res.writeHead(answer.status, answer.headers)
    res.end(answer.body)
    if (key === answers.broadcastOn) for (const socket of subscribers) socket.send(answers.ws.event)
  })
})

const wss = new WebSocketServer({ server, path: '/api/v2/websocket', perMessageDeflate: false })
wss.on('connection', (socket) => {
  socket.once('message', () => {
    subscribers.add(socket)
    socket.send(answers.ws.snapshot)
  })
  socket.on('close', () => subscribers.delete(socket))
})

server.keepAliveTimeout = 5_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }))
})
process.on('SIGTERM', () => process.exit(0))
