// What one LAN host may hold of the HTTP host: connections (in all and per address), and
// per connection the requests being answered and the answers not yet written. A client that
// pipelines requests without reading the answers would otherwise make the gateway render
// and keep every answer (history pages: tens of KB each) for as long as it does not read.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'

export interface ConnectionLimits {
  /** Open HTTP connections at once (WebSocket connections are the hub's: runtime/host/ws.ts). */
  maxConnections: number
  /** Of those, from one client address. */
  maxPerAddress: number
  /** Requests of one connection being answered at once (pipelining); more wait their turn. */
  maxActivePerConnection: number
  /** A connection with more answer bytes than this waiting to be written gets no new answer until it drains. */
  maxUnwrittenBytes: number
  /** Requests of one connection waiting their turn; one more and the connection is closed. */
  maxWaitingPerConnection: number
}

export const defaultConnectionLimits: ConnectionLimits = {
  maxConnections: 1024,
  maxPerAddress: 256,
  maxActivePerConnection: 8,
  maxUnwrittenBytes: 256 * 1024,
  maxWaitingPerConnection: 256,
}

const state = Symbol('connection state')

type Exchange = [IncomingMessage, ServerResponse]
/** Answers a request; its response's 'close' tells the guard it is done. */
export type Answer = (request: IncomingMessage, response: ServerResponse) => void

/** One connection's turn-taking: at most maxActive answers in the making, then a queue. */
class ConnectionState {
  active = 0
  readonly waiting: Exchange[] = []
  drainHooked = false
  counted = false
  readonly socket: TrackedSocket
  readonly guard: ConnectionGuard

  constructor(socket: TrackedSocket, guard: ConnectionGuard) {
    this.socket = socket
    this.guard = guard
  }
}

type TrackedSocket = Duplex & { [state]?: ConnectionState; remoteAddress?: string }
type TrackedResponse = ServerResponse & { [state]?: ConnectionState }

export function addressOf(socket: { remoteAddress?: string }): string {
  const remote = socket.remoteAddress ?? ''
  return remote.startsWith('::ffff:') ? remote.slice(7) : remote
}

/** A response closed (sent, or its client gone): its connection may start the next request. */
function responseClosed(this: TrackedResponse): void {
  const connection = this[state]!
  connection.active--
  if (connection.waiting.length > 0) connection.guard.pump(connection)
}

export class ConnectionGuard {
  readonly #limits: ConnectionLimits
  readonly #answer: Answer
  #open = 0
  readonly #perAddress = new Map<string, number>()

  constructor(answer: Answer, limits: Partial<ConnectionLimits> = {}) {
    this.#answer = answer
    this.#limits = { ...defaultConnectionLimits, ...limits }
  }

  get open(): number {
    return this.#open
  }

  /** Counts a new connection; false (and nothing counted) when it is one too many. */
  admit(socket: Socket): boolean {
    const address = addressOf(socket)
    const fromAddress = this.#perAddress.get(address) ?? 0
    if (this.#open >= this.#limits.maxConnections || fromAddress >= this.#limits.maxPerAddress) return false
    this.#open++
    this.#perAddress.set(address, fromAddress + 1)
    const tracked = socket as TrackedSocket
    const connection = (tracked[state] = new ConnectionState(tracked, this))
    connection.counted = true
    socket.once('close', () => this.release(socket))
    return true
  }

  /** Stops counting a connection: closed, or handed over to the WebSocket hub. */
  release(socket: Duplex): void {
    const connection = (socket as TrackedSocket)[state]
    if (!connection?.counted) return
    connection.counted = false
    this.#open--
    const address = addressOf(socket as TrackedSocket)
    const left = (this.#perAddress.get(address) ?? 1) - 1
    if (left > 0) this.#perAddress.set(address, left)
    else this.#perAddress.delete(address)
  }

  /**
   * Answers the request now if its connection may take another, later otherwise (in
   * order). A connection with too many requests waiting is destroyed. The usual case, one
   * request at a time, allocates nothing here.
   */
  schedule(request: IncomingMessage, response: ServerResponse): void {
    const socket = request.socket as TrackedSocket
    const connection = (socket[state] ??= new ConnectionState(socket, this))
    if (connection.waiting.length === 0 && this.#mayStart(connection)) return this.#start(connection, request, response)
    if (connection.waiting.length >= this.#limits.maxWaitingPerConnection) {
      socket.destroy()
      return
    }
    connection.waiting.push([request, response])
    this.pump(connection)
  }

  #start(connection: ConnectionState, request: IncomingMessage, response: TrackedResponse): void {
    connection.active++
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
      const [request, response] = waiting.shift()!
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
