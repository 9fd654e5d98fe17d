// The WebSocket feed (docs/api.md, "Events: webhooks and WebSocket") on the HTTP server's upgrade for /api/v2/websocket.
// First frame {"accesstoken": "..."} within authTimeoutMs (on the injected clock), then an
// ACTIVE_ORDERS snapshot and one frame per change. The hub keeps its own copy of the
// active orders, updated by the same ChangeLog listener that sends the frames, so a new
// subscriber's snapshot is exactly the state after the last frame it will not receive.
// A screen's settings changed (by itself, another browser of the same name, or an admin) go
// as a SCREEN_SETTINGS frame to the subscribers signed in with that token name only.
import type http from 'node:http'
import type https from 'node:https'
import type { Duplex } from 'node:stream'
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import { orderChangeFrame, activeOrderV2 } from '../../lib/api/present-order.ts'
import { hostname } from 'node:os'
import { errorEnvelope, v2Errors } from '../../lib/api/envelope.ts'
import { HostAllowList, refusal } from '../../lib/api/request-guard.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import { addressOf, clientKeyOf, isLoopback } from './connection-limits.ts'
import { answerRaw } from './raw-answer.ts'
import type { TimerHandle } from '../../lib/kernel/clock.ts'
import type { ErrorKind } from '../../lib/kernel/errors.ts'
import type { ActiveOrder, OrderChange } from '../../lib/orders/types.ts'
import type { Part } from '../wiring/lifecycle.ts'
import type { Services } from '../wiring/services.ts'

export const websocketPath = '/api/v2/websocket'

export interface WsLimits {
  /** Time for the first frame (10 s: docs/api.md, "Events: webhooks and WebSocket"). */
  authTimeoutMs: number
  /** A ping every interval; a client that did not answer the previous one is dropped. */
  pingIntervalMs: number
  /** Largest frame a client may send (the auth frame is tiny); larger closes with 1009. */
  maxPayload: number
  /** A client whose unsent data exceeds this is too slow and is dropped (close 1013). */
  maxBufferedBytes: number
  /** Authenticated subscribers at once; more are refused with 503 at upgrade (1013 at auth). */
  maxClients: number
  /**
   * Connections that have not authenticated yet, in all. They cannot hold the subscribers'
   * places: when full, the oldest waiting connection of the address holding most is closed
   * (1013) to make room, so a board always gets its chance to authenticate.
   */
  maxUnauthenticated: number
  /**
   * Of those, from one address (IPv6: one /64); one more from it closes that address's
   * oldest waiting connection, so a board behind the same address as a device that keeps
   * opening connections still gets its chance to authenticate.
   */
  maxUnauthenticatedPerAddress: number
  /** Authenticated subscribers with one token (issue 41: one token holder took all 1,000 places); more get 429 -53. */
  maxClientsPerToken: number
  /**
   * Authenticated subscribers from one address (IPv6: one /64), whatever their tokens; more
   * get 429 -53. Not for loopback: the box's own programs (a proxy would make every client one).
   */
  maxClientsPerAddress: number
}

export const defaultWsLimits: WsLimits = {
  authTimeoutMs: 10_000,
  pingIntervalMs: 30_000,
  maxPayload: 4 * 1024,
  maxBufferedBytes: 1024 * 1024,
  maxClients: 1000,
  maxUnauthenticated: 256,
  maxUnauthenticatedPerAddress: 16,
  maxClientsPerToken: 32,
  maxClientsPerAddress: 48,
}

type HubServices = Pick<Services, 'tokens' | 'changes' | 'orders' | 'clock' | 'log' | 'settings' | 'config' | 'screenSettings'>

interface Client {
  socket: WebSocket
  ip: string
  /** What its address counts as (IPv6: the /64). */
  key: string
  token: { name: string; id: string } | undefined
  authTimer: TimerHandle | undefined
  alive: boolean
  /** The auth frame is being checked; frames meanwhile are ignored. */
  verifying: boolean
}

function errorFrame(kind: ErrorKind, detail?: string): string {
  const mapping = v2Errors[kind]
  return JSON.stringify({ status: mapping.status, returnCode: mapping.code, message: mapping.message(detail) })
}

/** Adds `step` to the count of `key`; a count of 0 is removed. */
function count(counts: Map<string, number>, key: string, step: 1 | -1): void {
  const next = (counts.get(key) ?? 0) + step
  if (next <= 0) counts.delete(key)
  else counts.set(key, next)
}

export class WsHub {
  /** The plain server, and the TLS one beside it when on: the same feed on both. */
  readonly #servers: readonly (http.Server | https.Server)[]
  readonly #services: HubServices
  readonly #limits: WsLimits
  readonly #wss: WebSocketServer
  readonly #hosts: HostAllowList
  readonly #clients = new Set<Client>()
  /** Connections waiting for their auth frame, by address, oldest first. */
  readonly #unauthenticated = new Map<string, Set<Client>>()
  #unauthenticatedCount = 0
  #authenticatedCount = 0
  /** Authenticated subscribers by token id and by address key (their shares). */
  readonly #byToken = new Map<string, number>()
  readonly #byAddress = new Map<string, number>()
  readonly #orders = new Map<string, ActiveOrder>()
  #unsubscribe: (() => void)[] = []
  #pingTimer: TimerHandle | undefined
  #running = false

  constructor(server: http.Server | readonly (http.Server | https.Server)[], services: HubServices, limits: Partial<WsLimits> = {}) {
    this.#servers = Array.isArray(server) ? server : [server]
    this.#services = services
    this.#limits = { ...defaultWsLimits, ...limits }
    this.#hosts = HostAllowList.forHost(hostname(), services.config.http.allowedHosts)
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: this.#limits.maxPayload, perMessageDeflate: false })
  }

  get clientCount(): number {
    return this.#clients.size
  }

  start(): void {
    this.#running = true
    const touched = new Set<string>()
    this.#unsubscribe.push(
      this.#services.changes.on('recorded', (change) => {
        touched.add(change.order.uuid)
        this.#apply(change)
      }),
    )
    // Orders from before this start; a change seen meanwhile is newer than the list.
    for (const order of this.#services.orders.list()) {
      if (!touched.has(order.uuid)) this.#orders.set(order.uuid, order)
    }
    touched.clear()
    this.#unsubscribe.push(
      this.#services.screenSettings.on('changed', (screen) => {
        let frame: string | undefined
        for (const client of this.#clients) {
          if (client.token?.name !== screen.name) continue
          frame ??= JSON.stringify({ type: 'SCREEN_SETTINGS', screen })
          this.#send(client, frame)
        }
      }),
    )
    this.#unsubscribe.push(
      this.#services.tokens.on('revoked', ({ id }) => {
        for (const client of this.#clients) if (client.token?.id === id) client.socket.close(1008, 'access token revoked')
      }),
    )
    for (const server of this.#servers) server.on('upgrade', this.#onUpgrade)
    this.#schedulePing()
  }

  readonly #onUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    const pathname = (request.url ?? '').split('?')[0]
    if (pathname !== websocketPath) return answerRaw(socket, 404, 'Not Found', { status: 404, returnCode: -5, message: 'Route not found' })
    // A page of another site, or one rebound to the gateway's address, gets no feed either.
    const refused = refusal('GET', pathname, { get: (name) => headerValue(request.headers[name]) }, this.#hosts)
    if (refused) {
      const { status, body } = errorEnvelope('v2', new DomainError(refused))
      return answerRaw(socket, status, refused === 'HOST_UNKNOWN' ? 'Misdirected Request' : 'Forbidden', body)
    }
    if (this.#authenticatedCount >= this.#limits.maxClients) {
      return answerRaw(socket, 503, 'Service Unavailable', { status: 503, message: 'Too many WebSocket clients' })
    }
    const ip = addressOf(request.socket)
    const key = clientKeyOf(request.socket)
    if (this.#addressFull(key, ip)) {
      const { status, body } = errorEnvelope('v2', new DomainError('SHARE_EXCEEDED', this.#addressShareDetail()))
      return answerRaw(socket, status, 'Too Many Requests', body)
    }
    const fromAddress = this.#unauthenticated.get(key)
    if (fromAddress && fromAddress.size >= this.#limits.maxUnauthenticatedPerAddress) this.#drop(fromAddress.values().next().value!)
    else if (this.#unauthenticatedCount >= this.#limits.maxUnauthenticated) this.#evictUnauthenticated()
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#accept(ws, ip, key))
  }

  #accept(socket: WebSocket, ip: string, key: string): void {
    const client: Client = {
      socket,
      ip,
      key,
      token: undefined,
      authTimer: undefined,
      alive: true,
      verifying: false,
    }
    this.#clients.add(client)
    this.#waiting(client, true)
    client.authTimer = this.#services.clock.setTimeout(() => {
      client.authTimer = undefined
      if (client.token) return
      this.#send(client, errorFrame('WS_AUTH_TIMEOUT'))
      socket.close(1008, 'authentication timeout')
    }, this.#limits.authTimeoutMs)
    socket.on('pong', () => (client.alive = true))
    socket.on('message', (data, isBinary) => void this.#onMessage(client, data, isBinary))
    socket.on('error', () => socket.terminate())
    socket.on('close', () => this.#forget(client))
  }

  /** Adds a connection to, or removes it from, the unauthenticated ones. */
  #waiting(client: Client, waiting: boolean): void {
    let fromAddress = this.#unauthenticated.get(client.key)
    if (waiting) {
      if (!fromAddress) this.#unauthenticated.set(client.key, (fromAddress = new Set()))
      fromAddress.add(client)
      this.#unauthenticatedCount++
    } else if (fromAddress?.delete(client)) {
      this.#unauthenticatedCount--
      if (fromAddress.size === 0) this.#unauthenticated.delete(client.key)
    }
  }

  /** Closes the oldest unauthenticated connection of the address that holds the most. */
  #evictUnauthenticated(): void {
    let crowded: Set<Client> | undefined
    for (const fromAddress of this.#unauthenticated.values()) if (!crowded || fromAddress.size > crowded.size) crowded = fromAddress
    const oldest = crowded?.values().next().value
    // Cut off at once (no close handshake to wait for): its descriptor is what is scarce.
    if (oldest) this.#drop(oldest)
  }

  /** A client is gone (closed or dropped): it counts nowhere any more. Safe to call twice. */
  #forget(client: Client): void {
    this.#services.clock.clearTimeout(client.authTimer)
    client.authTimer = undefined
    if (!this.#clients.delete(client)) return
    if (client.token) {
      this.#authenticatedCount--
      count(this.#byToken, client.token.id, -1)
      count(this.#byAddress, client.key, -1)
    } else this.#waiting(client, false)
  }

  async #onMessage(client: Client, data: RawData, isBinary: boolean): Promise<void> {
    // After authentication the feed is one way: every frame is ignored, JSON or not, so a
    // client never finds an error frame among the events (docs/api.md, ruling on WebSocket
    // frames). Frames while the token is checked are ignored as well.
    if (client.token || client.verifying) return
    let message: unknown
    try {
      if (isBinary) throw new Error('binary')
      message = JSON.parse(data.toString())
    } catch {
      this.#send(client, errorFrame('JSON_INVALID'))
      return
    }
    const token = (message as { accesstoken?: unknown } | null)?.accesstoken
    client.verifying = true
    const limiter = this.#services.tokens.authFailures
    const retryAfter = limiter.retryAfter(client.ip)
    const identity = typeof token === 'string' ? await this.#services.tokens.verifyToken(token, client.ip) : null
    client.verifying = false
    if (client.socket.readyState !== WebSocket.OPEN) return
    if (!identity) {
      if (typeof token !== 'string') limiter.recordFailure(client.ip)
      this.#send(client, errorFrame(retryAfter ? 'RATE_LIMITED' : 'AUTH_REJECTED'))
      client.socket.close(1008, 'access token rejected')
      return
    }
    if (this.#authenticatedCount >= this.#limits.maxClients) {
      this.#send(client, JSON.stringify({ status: 503, message: 'Too many WebSocket clients' }))
      client.socket.close(1013, 'too many clients')
      return
    }
    const share = this.#shareRefusal(identity.id, client.key, client.ip)
    if (share) {
      this.#send(client, errorFrame('SHARE_EXCEEDED', share))
      client.socket.close(1013, 'too many connections for this token or address')
      return
    }
    this.#services.clock.clearTimeout(client.authTimer)
    client.authTimer = undefined
    this.#waiting(client, false)
    client.token = identity
    this.#authenticatedCount++
    count(this.#byToken, identity.id, 1)
    count(this.#byAddress, client.key, 1)
    // Synchronous from here to the send: no change can slip between snapshot and feed.
    const options = this.#presentOptions()
    const items = [...this.#orders.values()].sort((a, b) => a.created - b.created).map((o) => activeOrderV2(o, options))
    this.#send(client, JSON.stringify({ type: 'ACTIVE_ORDERS', count: items.length, items, seq: this.#services.changes.lastSeq }))
  }

  /** Why a token or an address may not have one more subscriber, or undefined when it may. */
  #shareRefusal(tokenId: string, key: string, ip: string): string | undefined {
    if ((this.#byToken.get(tokenId) ?? 0) >= this.#limits.maxClientsPerToken) {
      return `at most ${this.#limits.maxClientsPerToken} WebSocket connections per access token`
    }
    if (this.#addressFull(key, ip)) return this.#addressShareDetail()
    return undefined
  }

  #addressFull(key: string, ip: string): boolean {
    return (this.#byAddress.get(key) ?? 0) >= this.#limits.maxClientsPerAddress && !isLoopback(ip)
  }

  #addressShareDetail(): string {
    return `at most ${this.#limits.maxClientsPerAddress} WebSocket connections per address`
  }

  #presentOptions() {
    return { now: this.#services.clock.now(), timezone: this.#services.settings.timezone }
  }

  #apply(change: OrderChange): void {
    if (change.type === 'ORDER_CLEARED' || change.order.state === 'cleared') this.#orders.delete(change.order.uuid)
    else this.#orders.set(change.order.uuid, change.order)
    let frame: string | undefined
    for (const client of this.#clients) {
      if (!client.token) continue
      // One serialisation per change, shared by every subscriber.
      frame ??= JSON.stringify(orderChangeFrame(change, this.#presentOptions()))
      this.#send(client, frame)
    }
  }

  #send(client: Client, frame: string): void {
    const { socket } = client
    if (socket.readyState !== WebSocket.OPEN) return
    if (socket.bufferedAmount > this.#limits.maxBufferedBytes) {
      // A client that does not read would make the gateway hold every frame for it.
      this.#services.log.warn({ ip: client.ip, buffered: socket.bufferedAmount }, 'WebSocket client too slow: dropped')
      this.#drop(client)
      return
    }
    socket.send(frame)
  }

  /** Cuts a client off at once; it stops counting before its socket has finished closing. */
  #drop(client: Client): void {
    this.#forget(client)
    client.socket.terminate()
  }

  #schedulePing(): void {
    if (!this.#running) return
    this.#pingTimer = this.#services.clock.setTimeout(() => {
      for (const client of this.#clients) {
        if (!client.alive) {
          this.#drop(client)
          continue
        }
        client.alive = false
        try {
          client.socket.ping()
        } catch {
          this.#drop(client)
        }
      }
      this.#schedulePing()
    }, this.#limits.pingIntervalMs)
  }

  async stop(): Promise<void> {
    this.#running = false
    this.#services.clock.clearTimeout(this.#pingTimer)
    for (const off of this.#unsubscribe) off()
    this.#unsubscribe = []
    for (const server of this.#servers) server.off('upgrade', this.#onUpgrade)
    const closed = [...this.#clients].map(
      (client) =>
        new Promise<void>((resolve) => {
          if (client.socket.readyState === WebSocket.CLOSED) return resolve()
          client.socket.once('close', () => resolve())
          client.socket.close(1001, 'gateway stopping')
          // A peer that never answers the close handshake is cut off.
          setTimeout(() => client.socket.terminate(), 1000).unref()
        }),
    )
    await Promise.all(closed)
    this.#wss.close()
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
}

/** The hub as a part; `clientCount` is what /metrics reports. */
export function wsHubPart(
  server: http.Server | readonly (http.Server | https.Server)[],
  services: HubServices,
  limits?: Partial<WsLimits>,
): Part & { clientCount(): number } {
  const hub = new WsHub(server, services, limits)
  return { name: 'ws', start: async () => hub.start(), stop: () => hub.stop(), clientCount: () => hub.clientCount }
}
