// What one LAN host may hold of the HTTP host: connections (in all and per address), and
// per connection the requests being answered and the answers not yet written. A client that
// pipelines requests without reading the answers would otherwise make the gateway render
// and keep every answer (history pages: tens of KB each) for as long as it does not read.
//
// When the box is full, a newcomer is not refused: like nginx draining its "reusable"
// connections, a connection that holds a place without using it (never sent a request, idle
// keep-alive, a request still arriving) is closed to make room, from the newcomer's own
// address when that address is at its cap, else from the address holding most. A connection
// that carried an authenticated request is never shed (markAuthenticated), nor one whose
// request is being answered. So a handful of devices re-opening idle connections cannot lock
// out a new client, and a board behind the same address as such a device gets in.
//
// Fair shares (issue 41): requests without a known credential are answered at most
// maxActivePerAddress at a time per address and maxActiveUnauthenticated in all; the others
// wait, their turn given round the waiting addresses. A connection whose request waits for
// its share has had nothing done for it yet, so it may be shed like an idle one: eight
// addresses sending slow requests on every connection they can open no longer hold places
// nobody may take back. A request of a connection that authenticated before, or carrying a
// token that verifies (checked only when it would otherwise wait), takes no share.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { keyOf } from '../../lib/tokens/limiter.ts'

export interface ConnectionLimits {
  /** Open HTTP connections at once (WebSocket connections are the hub's: runtime/host/ws.ts). */
  maxConnections: number
  /** Of those, from one client address (IPv6: one /64). */
  maxPerAddress: number
  /** Requests of one connection being answered at once (pipelining); more wait their turn. */
  maxActivePerConnection: number
  /** A connection with more answer bytes than this waiting to be written gets no new answer until it drains. */
  maxUnwrittenBytes: number
  /** Requests of one connection waiting their turn; one more and the connection is closed. */
  maxWaitingPerConnection: number
  /** Requests without a credential being answered at once for one address (IPv6: one /64); more wait. */
  maxActivePerAddress: number
  /** Requests without a credential being answered at once in all; more wait, addresses taking turns. */
  maxActiveUnauthenticated: number
  /**
   * A connection yet to send its first request counts as a client about to send it for this
   * long after it was accepted (a real client sends at once): until then it is shed only
   * after every connection that idles or waits. Without it, a device re-opening connections
   * shed the newest connection of its address, a board's that had just connected behind it.
   */
  newConnectionGraceMs: number
  /**
   * Whether the box's own programs (loopback: a POS on the box, a proxy in front) take
   * shares too. Off: they are the box's, not a LAN device's, and a proxy would make every
   * client one address.
   */
  loopbackShares: boolean
}

/** Sized to a restaurant: tens of devices, a few connections each (docs/operations.md, "Limits"). */
export const defaultConnectionLimits: ConnectionLimits = {
  maxConnections: 512,
  maxPerAddress: 64,
  maxActivePerConnection: 8,
  maxUnwrittenBytes: 256 * 1024,
  maxWaitingPerConnection: 256,
  maxActivePerAddress: 8,
  maxActiveUnauthenticated: 128,
  newConnectionGraceMs: 1_000,
  loopbackShares: false,
}

const state = Symbol('connection state')

type Exchange = [IncomingMessage, ServerResponse]
/** Answers a request; its response's 'close' tells the guard it is done. */
export type Answer = (request: IncomingMessage, response: ServerResponse) => void
/** Whether a request carries a credential that verifies (it then takes no address share). */
export type Credentialed = (request: IncomingMessage) => boolean

/** One connection's turn-taking: at most maxActive answers in the making, then a queue. */
class ConnectionState {
  active = 0
  readonly waiting: Exchange[] = []
  drainHooked = false
  counted = false
  /** Answers sent on it so far. */
  served = 0
  /** It carried an authenticated request: never shed. */
  authenticated = false
  /** The request started last (its body may still be arriving). */
  current: IncomingMessage | undefined = undefined
  readonly socket: TrackedSocket
  readonly guard: ConnectionGuard
  /** Its address's key (IPv6: the /64), set once counted. */
  key = ''
  /** Its next request waits for its address's share (it is in the guard's queue). */
  queued = false
  /** It takes no share (loopback: ConnectionLimits.loopbackShares). */
  exempt = false
  /** When the guard admitted it (performance.now()). */
  acceptedAt = performance.now()

  constructor(socket: TrackedSocket, guard: ConnectionGuard) {
    this.socket = socket
    this.guard = guard
  }
}

type TrackedSocket = Duplex & { [state]?: ConnectionState; remoteAddress?: string }
const share = Symbol('address share')
const shareInAll = Symbol('counted in all')
type TrackedResponse = ServerResponse & { [state]?: ConnectionState; [share]?: string; [shareInAll]?: boolean }

/** The client's address, an IPv4-mapped IPv6 address as the IPv4 address it is. */
export function addressOf(socket: { remoteAddress?: string }): string {
  const remote = socket.remoteAddress ?? ''
  return remote.slice(0, 7).toLowerCase() === '::ffff:' && remote.includes('.') ? remote.slice(7) : remote
}

/** The box itself (an address as addressOf gives it). */
export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1'
}

/** What one client is counted as: its IPv4 address, or its IPv6 /64 (one host usually owns one). */
export function clientKeyOf(socket: { remoteAddress?: string }): string {
  return keyOf(addressOf(socket))
}

/**
 * A connection that carried an authenticated request (a board, a POS with a token): it is
 * never shed to make room. Called by the router once a request's credential verified.
 */
export function markAuthenticated(socket: Duplex | undefined): void {
  const connection = (socket as TrackedSocket | undefined)?.[state]
  if (connection) connection.authenticated = true
}

/**
 * An HTTPS connection: its TLS socket (what requests arrive on) takes the state the guard gave
 * the TCP socket it admitted, so the requests, the authentication and the shedding of that
 * connection are one (without it, an authenticated board over HTTPS looked like a connection
 * that never sent a request, the first to be shed).
 */
export function shareConnectionState(tlsSocket: Duplex, tcpSocket: Duplex): void {
  const connection = (tcpSocket as TrackedSocket)[state]
  if (connection) (tlsSocket as TrackedSocket)[state] = connection
}

/**
 * How much a connection may be shed for a newcomer: 0 not at all (authenticated, or a
 * request of it being answered), 1 new and yet to send its request (newConnectionGraceMs),
 * 2 it holds unread answers (a client that does not read), 3 idle after answers, a request
 * still arriving or waiting for its address's share, 4 it never sent a request.
 */
function sheddability(connection: ConnectionState, now: number, graceMs: number): number {
  if (connection.authenticated) return 0
  const { active, waiting, current, socket } = connection
  // Nothing started for it: its requests wait for their address's share.
  if (active === 0 && waiting.length > 0) return socket.writableLength > 0 ? 2 : 3
  if (waiting.length > 0) return socket.writableLength > 0 ? 2 : 0
  if (active === 0) {
    if (socket.writableLength > 0) return 2
    if (connection.served > 0) return 3
    return now - connection.acceptedAt < graceMs ? 1 : 4
  }
  // One request whose body is still arriving (a half-sent request) holds a place for nothing yet.
  if (active === 1 && current !== undefined && !current.complete) return 3
  return socket.writableLength > 0 ? 2 : 0
}

/**
 * The request is all there: complete, or without a body (node marks a GET complete only
 * after its 'request' event).
 */
function arrivedWhole(request: IncomingMessage): boolean {
  if (request.complete) return true
  const { headers } = request
  return headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0')
}

/** A response closed (sent, or its client gone): its connection may start the next request. */
function responseClosed(this: TrackedResponse): void {
  const connection = this[state]!
  const key = this[share]
  if (key !== undefined) connection.guard.shareFreed(key, this[shareInAll] === true)
  connection.active--
  connection.served++
  if (connection.active === 0) connection.current = undefined
  if (connection.waiting.length > 0) connection.guard.pump(connection)
}

export class ConnectionGuard {
  readonly #limits: ConnectionLimits
  readonly #answer: Answer
  readonly #credentialed: Credentialed | undefined
  #open = 0
  /** Requests without a credential being answered, by address key, and in all. */
  readonly #activeByAddress = new Map<string, number>()
  #activeUnauthenticated = 0
  /** Shares taken so far: whether a queued connection started. */
  #sharesTaken = 0
  /** Connections whose next request waits for a share, by address key, in turn order. */
  readonly #queued = new Map<string, Set<ConnectionState>>()
  /** Counted connections by client key, oldest first. */
  readonly #byAddress = new Map<string, Set<ConnectionState>>()

  constructor(answer: Answer, limits: Partial<ConnectionLimits> = {}, credentialed?: Credentialed) {
    this.#answer = answer
    this.#credentialed = credentialed
    this.#limits = { ...defaultConnectionLimits, ...limits }
  }

  get open(): number {
    return this.#open
  }

  /**
   * Counts a new connection, first shedding one that holds a place without using it when
   * the newcomer's address or the box is full; false (nothing counted) when no connection
   * can be shed: every place is taken by requests being answered or authenticated clients.
   */
  admit(socket: Socket): boolean {
    const key = clientKeyOf(socket)
    const fromAddress = this.#byAddress.get(key)
    if (fromAddress && fromAddress.size >= this.#limits.maxPerAddress && !this.#shedOne(fromAddress)) return false
    if (this.#open >= this.#limits.maxConnections && !this.#shedFromBusiest()) return false
    const tracked = socket as TrackedSocket
    const connection = (tracked[state] = new ConnectionState(tracked, this))
    connection.counted = true
    connection.key = key
    connection.exempt = !this.#limits.loopbackShares && isLoopback(addressOf(socket))
    this.#open++
    let set = this.#byAddress.get(key)
    if (!set) this.#byAddress.set(key, (set = new Set()))
    set.add(connection)
    socket.once('close', () => this.release(socket))
    return true
  }

  /** Stops counting a connection: closed, shed, or handed over to the WebSocket hub. */
  release(socket: Duplex): void {
    const connection = (socket as TrackedSocket)[state]
    if (!connection) return
    this.#unqueue(connection)
    if (!connection.counted) return
    connection.counted = false
    this.#open--
    const set = this.#byAddress.get(connection.key)
    if (set?.delete(connection) && set.size === 0) this.#byAddress.delete(connection.key)
  }

  /** Sheds the most sheddable connection of one address (oldest first among equals). */
  #shedOne(connections: Set<ConnectionState>): boolean {
    let victim: ConnectionState | undefined
    let best = 0
    const now = performance.now()
    for (const connection of connections) {
      const rank = sheddability(connection, now, this.#limits.newConnectionGraceMs)
      if (rank > best) {
        best = rank
        victim = connection
        if (rank === 4) break
      }
    }
    if (!victim) return false
    this.release(victim.socket)
    victim.socket.destroy()
    return true
  }

  /** Sheds from the address holding most connections, or the next one that has one to give. */
  #shedFromBusiest(): boolean {
    const addresses = [...this.#byAddress.values()].sort((a, b) => b.size - a.size)
    return addresses.some((connections) => this.#shedOne(connections))
  }

  /**
   * Answers the request now if its connection may take another, later otherwise (in
   * order). A connection with too many requests waiting is destroyed. The usual case, one
   * request at a time, allocates nothing here.
   */
  schedule(request: IncomingMessage, response: ServerResponse): void {
    const socket = request.socket as TrackedSocket
    const connection = (socket[state] ??= new ConnectionState(socket, this))
    if (connection.waiting.length === 0 && this.#mayStart(connection)) {
      if (this.#takeShare(connection, request, response)) return this.#start(connection, request, response)
      connection.waiting.push([request, response])
      this.#enqueue(connection)
      return
    }
    if (connection.waiting.length >= this.#limits.maxWaitingPerConnection) {
      socket.destroy()
      return
    }
    connection.waiting.push([request, response])
    this.pump(connection)
  }

  /**
   * Takes a share of the address for the request, or says it must wait. A connection that
   * authenticated before takes none; nor does a request whose token verifies, asked only
   * when the share is full (so the usual request costs no second token check).
   */
  #takeShare(connection: ConnectionState, request: IncomingMessage, response: TrackedResponse): boolean {
    if (connection.authenticated || connection.exempt) return true
    const key = connection.key
    // A request whose body is still arriving takes a share of its address only: while it
    // arrives its connection may be shed (sheddability), so slow senders from many
    // addresses cannot hold the shares in all that keep places for everyone else.
    const inAll = arrivedWhole(request)
    if (!this.#shareFree(key, inAll)) {
      if (!this.#credentialed?.(request)) return false
      connection.authenticated = true
      return true
    }
    this.#activeByAddress.set(key, (this.#activeByAddress.get(key) ?? 0) + 1)
    if (inAll) this.#activeUnauthenticated++
    response[share] = key
    response[shareInAll] = inAll
    this.#sharesTaken++
    return true
  }

  #shareFree(key: string, inAll: boolean): boolean {
    return (
      (!inAll || this.#activeUnauthenticated < this.#limits.maxActiveUnauthenticated) &&
      (this.#activeByAddress.get(key) ?? 0) < this.#limits.maxActivePerAddress
    )
  }

  /** A request that held a share of `key` is done: the next waiting connection, addresses taking turns, may start. */
  shareFreed(key: string, inAll: boolean): void {
    const left = this.#activeByAddress.get(key)! - 1
    if (left === 0) this.#activeByAddress.delete(key)
    else this.#activeByAddress.set(key, left)
    if (inAll) this.#activeUnauthenticated--
    if (this.#queued.size > 0) this.#startQueued()
  }

  /**
   * Starts the request of one waiting connection: of the address that has waited longest
   * and may take a share now; that address then goes to the back of the line, so addresses
   * take turns. A connection that cannot start after all (gone, or its client not reading)
   * passes the turn on.
   */
  #startQueued(): void {
    while (this.#queued.size > 0) {
      let turnKey: string | undefined
      for (const key of this.#queued.keys()) {
        // Whether its request has arrived whole is known once it starts: ask for both shares.
        if (this.#shareFree(key, true)) {
          turnKey = key
          break
        }
      }
      if (turnKey === undefined) return
      const connections = this.#queued.get(turnKey)!
      const next = connections.values().next().value!
      this.#unqueue(next)
      if (connections.size > 0) {
        this.#queued.delete(turnKey)
        this.#queued.set(turnKey, connections)
      }
      const before = this.#sharesTaken
      this.pump(next)
      if (this.#sharesTaken > before) return
    }
  }

  #enqueue(connection: ConnectionState): void {
    if (connection.queued) return
    connection.queued = true
    let connections = this.#queued.get(connection.key)
    if (!connections) this.#queued.set(connection.key, (connections = new Set()))
    connections.add(connection)
  }

  #unqueue(connection: ConnectionState): void {
    if (!connection.queued) return
    connection.queued = false
    const connections = this.#queued.get(connection.key)
    if (connections?.delete(connection) && connections.size === 0) this.#queued.delete(connection.key)
  }

  #start(connection: ConnectionState, request: IncomingMessage, response: TrackedResponse): void {
    connection.active++
    connection.current = request
    response[state] = connection
    response.on('close', responseClosed)
    this.#answer(request, response)
  }

  #mayStart(connection: ConnectionState): boolean {
    return connection.active < this.#limits.maxActivePerConnection && connection.socket.writableLength <= this.#limits.maxUnwrittenBytes
  }

  /** Starts the waiting requests the connection may take now. */
  pump(connection: ConnectionState): void {
    const { socket, waiting } = connection
    while (waiting.length > 0 && !socket.destroyed && this.#mayStart(connection)) {
      const [request, response] = waiting[0]
      if (!this.#takeShare(connection, request, response)) {
        // Its turn comes when a request of its address, or any when all shares are taken, ends.
        this.#enqueue(connection)
        return
      }
      waiting.shift()
      this.#start(connection, request, response)
    }
    if (waiting.length > 0 && !socket.destroyed && !connection.drainHooked && connection.active < this.#limits.maxActivePerConnection) {
      // Held back by unwritten bytes only: go on once the client has read them.
      connection.drainHooked = true
      socket.once('drain', () => {
        connection.drainHooked = false
        this.pump(connection)
      })
    }
  }
}
