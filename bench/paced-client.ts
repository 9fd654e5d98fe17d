// An open-loop HTTP/1.1 load at an even pace, for latency at a given rate: request i is due at
// start + i/rate whatever happened before, and its latency counts from when it was due, so a
// server that falls behind is charged for the queue it builds (no coordinated omission).
// Written on raw sockets with one prepared request and a minimal response parser, because
// node's http client spent more CPU per request than the server did, and its pauses showed
// up as the server's latency. The first warmSeconds are sent the same way but not recorded:
// measured here, the first few hundred milliseconds of a run at a new rate were slow on both
// the gateway and the bare server alike (a queue of up to 150 ms that took as long to drain),
// which at 10 s and p99 was the whole tail.
//
// This client's own pauses count as the server's latency too, so its hot path allocates
// next to nothing. Measured: a new buffer for every read (memory outside V8's heap, at
// 150-200 MB/s of answers) brought a full GC for "external memory pressure" every few
// hundred milliseconds, and with the garbage of a promise per spin of the pacing loop, one
// every 50-130 ms (2-10 ms each): that put the p99 of both servers alike above 10 ms.
import net from 'node:net'

export interface PacedResult {
  /** Milliseconds from due to the last byte of the answer, sorted (after the warm-up). */
  latencies: Float64Array
  non2xx: number
  errors: number
  /** The measured span, warm-up excluded. */
  seconds: number
  /**
   * This client's own pauses in the measured span: gaps over 1 ms between its pacing turns
   * (its GC, or its thread not running). Its latencies include them, so a run with long
   * pauses measured the load generator as much as the server.
   */
  stalls: { count: number; totalMs: number; maxMs: number }
}

interface Connection {
  socket: net.Socket
  /** When the request in flight was due; undefined when idle. */
  due: number | undefined
  /** Header bytes received so far (until the blank line), then the body bytes still to come. */
  head: Buffer
  bodyLeft: number
  status: number
}

export const headerEnd = Buffer.from('\r\n\r\n')
const noBytes = Buffer.alloc(0)
/** How far ahead of a request's due time the pacing loop stops yielding to the event loop. */
const spinMs = 0.1

export function contentLength(head: string): number {
  const match = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  return match ? Number(match[1]) : 0
}

export interface PacedOptions {
  port: number
  path: string
  headers: Record<string, string>
  rate: number
  seconds: number
  warmSeconds?: number
  /** Called as the first recorded request goes out. */
  onMeasuring?: () => void
  connections: number
}

export async function pacedLoad(options: PacedOptions): Promise<PacedResult> {
  const { port, rate, connections } = options
  const warmRequests = Math.round(rate * (options.warmSeconds ?? 0))
  const total = warmRequests + Math.max(1, Math.round(rate * options.seconds))
  const request = Buffer.from(
    `GET ${options.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      Object.entries(options.headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      '\r\n',
  )
  const latencies = new Float64Array(total - warmRequests)
  let recorded = 0
  let non2xx = 0
  let errors = 0
  let done = 0
  /** Requests [0, sent) are due; [0, dispatched) of them went out (or are being retried). */
  let sent = 0
  let dispatched = 0
  /** Due times of requests to send again (their connection closed before reading them). */
  const retries: number[] = []
  const idle: Connection[] = []
  let started = 0
  const dueAt = (i: number) => started + (i * 1000) / rate
  let finished: () => void = () => undefined
  const allDone = new Promise<void>((resolve) => (finished = resolve))
  /** Requests due before this are the warm-up's. */
  let measuredFrom = Infinity

  const complete = (connection: Connection, failed: boolean) => {
    if (connection.due === undefined) return
    const measured = connection.due >= measuredFrom
    if (measured && failed) errors++
    else if (measured) {
      latencies[recorded++] = performance.now() - connection.due
      if (connection.status < 200 || connection.status >= 300) non2xx++
    }
    connection.due = undefined
    done++
    // Back to work, or to the idle ones, which are closed at the end (the last one too).
    if (!failed) send(connection)
    if (done === total) finished()
  }

  const send = (connection: Connection) => {
    let due: number
    if (retries.length > 0) due = retries.shift()!
    else if (dispatched < sent) due = dueAt(dispatched++)
    else {
      idle.push(connection)
      return
    }
    connection.due = due
    connection.head = noBytes
    connection.bodyLeft = -1
    connection.socket.write(request)
  }

  /** `read` is this connection's receive buffer, reused for every read: copy what is kept. */
  const onRead = (connection: Connection, read: Buffer) => {
    if (connection.bodyLeft < 0) {
      const received = connection.head.length ? Buffer.concat([connection.head, read]) : read
      const end = received.indexOf(headerEnd)
      if (end < 0) {
        connection.head = Buffer.from(received)
        return
      }
      const head = received.toString('latin1', 0, end)
      connection.status = Number(head.slice(9, 12))
      connection.bodyLeft = contentLength(head) - (received.length - end - headerEnd.length)
    } else {
      connection.bodyLeft -= read.length
    }
    if (connection.bodyLeft <= 0) complete(connection, false)
  }

  let stopping = false
  const open = () =>
    new Promise<Connection>((resolve, reject) => {
      // Reads go into one buffer per connection instead of a new one per read (see the top).
      const receive = Buffer.allocUnsafe(64 * 1024)
      const socket = net.connect({
        port,
        host: '127.0.0.1',
        noDelay: true,
        onread: { buffer: receive, callback: (length) => (onRead(connection, receive.subarray(0, length)), true) },
      })
      const connection: Connection = { socket, due: undefined, head: noBytes, bodyLeft: -1, status: 0 }
      socket.on('close', () => {
        // A request sent just as the server closed the idle connection was never read:
        // it goes again on another connection, still timed from when it was due.
        if (connection.due !== undefined && connection.head.length === 0 && connection.bodyLeft < 0) {
          retries.push(connection.due)
          connection.due = undefined
        }
        complete(connection, true)
        // A server closes keep-alive connections left idle (5 s here): replace them.
        const at = idle.indexOf(connection)
        if (at >= 0) idle.splice(at, 1)
        if (!stopping) open().then(send, () => undefined)
      })
      socket.on('error', () => undefined) // 'close' follows and decides
      socket.once('connect', () => resolve(connection))
      socket.once('error', reject)
    })

  for (let i = 0; i < connections; i++) idle.push(await open())
  started = performance.now()
  measuredFrom = dueAt(warmRequests)
  // Each request goes out when it is due. setImmediate, not a 1 ms timer: sending up to a
  // millisecond late would count as the server's latency. This spins the load generator's
  // own core, which it has to itself; one callback, no promise per spin.
  let allSent: () => void = () => undefined
  const sending = new Promise<void>((resolve) => (allSent = resolve))
  const stalls = { count: 0, totalMs: 0, maxMs: 0 }
  let lastTurn = 0
  const pace = () => {
    const now = performance.now()
    const gap = now - lastTurn
    if (now >= measuredFrom && lastTurn > 0 && gap > 1) {
      stalls.count++
      stalls.totalMs += gap
      stalls.maxMs = Math.max(stalls.maxMs, gap)
    }
    lastTurn = now
    while (sent < total && dueAt(sent) <= now) {
      if (sent === warmRequests) options.onMeasuring?.()
      sent++
      // The most recently used first, as connection pools do (a rotation through all of them
      // measured far worse tails, from both servers alike).
      const connection = idle.pop()
      if (connection) send(connection)
    }
    if (sent >= total) return allSent()
    // Due within 0.1 ms: wait for it here rather than go round the event loop, where every
    // turn allocates an Immediate (at a million turns a second, this client's main garbage).
    // Answers arriving meanwhile are read at most that much later.
    const next = dueAt(sent)
    while (next - performance.now() > 0 && next - performance.now() < spinMs);
    setImmediate(pace)
  }
  pace()
  await sending
  // Requests still queued when every connection died are counted as errors.
  const deadline = setTimeout(() => {
    errors += Math.min(total - done, total - warmRequests)
    finished()
  }, 30_000)
  await allDone
  clearTimeout(deadline)
  const seconds = (performance.now() - measuredFrom) / 1000
  stopping = true
  for (const connection of [...idle]) connection.socket.destroy()
  return { latencies: latencies.subarray(0, recorded).sort(), non2xx, errors, seconds, stalls }
}
