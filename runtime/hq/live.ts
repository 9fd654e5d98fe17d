// The chain board's live updates: every HQ instance LISTENs on PostgreSQL's hq_changes
// channel (a batch or an alert NOTIFYs it when its transaction commits), so a change ingested
// by any instance reaches the boards open on every instance. Boards connect by WebSocket to
// /api/hq/live with the subprotocols "hq" and "token.<HQ token>" (a browser cannot set an
// Authorization header on a WebSocket). Notifications are merged for 100 ms, then each board
// gets {"type":"changed","sites":[...] or "*","alerts":bool} and reads what it shows again.
import type http from 'node:http'
import type https from 'node:https'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { notifyChannel } from '../../lib/hq/apply.ts'
import type { HqTokens } from '../../lib/hq/tokens.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { Database } from '../../lib/store/postgres.ts'

export const livePath = '/api/hq/live'
const maxBoards = 500

export class HqLive {
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: 1024, handleProtocols: () => 'hq' })
  readonly #db: Database
  readonly #tokens: Pick<HqTokens, 'verify'>
  readonly #log: Logger
  #listener: { close(): Promise<void> } | undefined
  #retry: NodeJS.Timeout | undefined
  #flush: NodeJS.Timeout | undefined
  #sites = new Set<string>()
  #all = false
  #alerts = false
  #stopped = false

  constructor(db: Database, tokens: Pick<HqTokens, 'verify'>, log: Logger) {
    this.#db = db
    this.#tokens = tokens
    this.#log = log
  }

  get boards(): number {
    return this.#wss.clients.size
  }

  /** Listens for the boards' upgrades on HQ's server (its HTTPS one when HQ has a certificate). */
  attach(server: http.Server | https.Server): void {
    server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.#upgrade(request, socket, head)
    })
  }

  async #upgrade(request: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
    }
    if (new URL(request.url ?? '/', 'http://hq').pathname !== livePath) return refuse('404 Not Found')
    if (this.#wss.clients.size >= maxBoards) return refuse('503 Service Unavailable')
    const offered = String(request.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
    const token = offered.find((p) => p.startsWith('token.'))?.slice('token.'.length)
    const identity = token && offered.includes('hq') ? await this.#tokens.verify(token).catch(() => undefined) : undefined
    if (!identity) return refuse('401 Unauthorized')
    this.#wss.handleUpgrade(request, socket, head, (ws: WebSocket) => {
      ws.on('error', () => ws.terminate())
      ws.send(JSON.stringify({ type: 'hello' }))
    })
  }

  /** Starts listening; after a lost connection (PostgreSQL restart) it listens again and tells every board to read everything. */
  async start(): Promise<void> {
    this.#stopped = false
    try {
      this.#listener = await this.#db.listen(
        notifyChannel,
        (payload) => this.#notified(payload),
        () => this.#lost(),
      )
    } catch (error) {
      this.#log.warn({ err: error }, 'hq live: cannot LISTEN, trying again')
      this.#lost()
    }
  }

  #lost(): void {
    if (this.#stopped || this.#retry) return
    void this.#listener?.close()
    this.#listener = undefined
    this.#retry = setTimeout(async () => {
      this.#retry = undefined
      await this.start()
      if (this.#listener) this.#notified('"*"')
    }, 1000)
  }

  #notified(payload: string): void {
    let parsed: unknown
    try {
      parsed = JSON.parse(payload)
    } catch {
      parsed = '*'
    }
    if (parsed === 'alerts') this.#alerts = true
    else if (Array.isArray(parsed)) for (const site of parsed) this.#sites.add(String(site))
    else this.#all = true
    this.#flush ??= setTimeout(() => this.#broadcast(), 100)
  }

  #broadcast(): void {
    this.#flush = undefined
    const message = JSON.stringify({ type: 'changed', sites: this.#all ? '*' : [...this.#sites], alerts: this.#alerts })
    this.#sites = new Set()
    this.#all = false
    this.#alerts = false
    for (const client of this.#wss.clients) if (client.readyState === client.OPEN) client.send(message)
  }

  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#retry)
    clearTimeout(this.#flush)
    for (const client of this.#wss.clients) client.terminate()
    await this.#listener?.close()
  }
}
