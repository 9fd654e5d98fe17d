// An open-loop HTTP/1.1 load at an even pace, for latency at a given rate: request i is due at
// start + i/rate whatever happened before, and its latency counts from when it was due, so a
// server that falls behind is charged for the queue it builds (no coordinated omission).
// Written on raw sockets with one prepared request and a minimal response parser, because
// node's http client spent more CPU per request than the server did, and its pauses showed
// up as the server's latency. The first warmSeconds are sent the same way but not recorded:
// measured here, the first few hundred milliseconds of a run at a new rate were slow on both
// the gateway and the bare server alike (a queue of up to 150 ms that took as long to drain),
// which at 10 s and p99 was the whole tail.
import net from 'node:net'

export interface PacedResult {
  /** Milliseconds from due to the last byte of the answer, sorted (after the warm-up). */
  latencies: number[]
  non2xx: number
  errors: number
  /** The measured span, warm-up excluded. */
  seconds: number
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

export function contentLength(head: string): number {
  const match = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  return match ? Number(match[1]) : 0
}

export async function pacedLoad(options: { port: number; path: string; headers: Record<string, string>; rate: number; seconds: number; warmSeconds?: number; onMeasuring?: () => void; connections: number }): Promise<PacedResult> {
  const { port, rate, connections } = options
  const warmRequests = Math.round(rate * (options.warmSeconds ?? 0))
  const total = warmRequests + Math.max(1, Math.round(rate * options.seconds))
  const request = Buffer.from(
    `GET ${options.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      Object.entries(options.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
      '\r\n',
  )
  const latencies: number[] = []
  let non2xx = 0
  let errors = 0
  let sent = 0
  let done = 0
  const waiting: number[] = []
  const idle: Connection[] = []
  let finished: () => void = () => undefined
  const allDone = new Promise<void>((resolve) => (finished = resolve))
  /** Requests due before this are the warm-up's. */
  let measuredFrom = Infinity

  const complete = (connection: Connection, failed: boolean) => {
    if (connection.due === undefined) return
    const recorded = connection.due >= measuredFrom
    if (recorded && failed) errors++
    else if (recorded) {
      latencies.push(performance.now() - connection.due)
      if (connection.status < 200 || connection.status >= 300) non2xx++
    }
    connection.due = undefined
    done++
    if (done === total) finished()
    else if (!failed) send(connection)
  }

  const send = (connection: Connection) => {
    const due = waiting.shift()
    if (due === undefined) {
      idle.push(connection)
      return
    }
    connection.due = due
    connection.head = Buffer.alloc(0)
    connection.bodyLeft = -1
    connection.socket.write(request)
  }

  const onData = (connection: Connection, chunk: Buffer) => {
    if (connection.bodyLeft < 0) {
      connection.head = connection.head.length ? Buffer.concat([connection.head, chunk]) : chunk
      const end = connection.head.indexOf(headerEnd)
      if (end < 0) return
      const head = connection.head.subarray(0, end).toString('latin1')
      connection.status = Number(head.slice(9, 12))
      connection.bodyLeft = contentLength(head) - (connection.head.length - end - headerEnd.length)
    } else {
      connection.bodyLeft -= chunk.length
    }
    if (connection.bodyLeft <= 0) complete(connection, false)
  }

  let stopping = false
  const open = () =>
    new Promise<Connection>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.setNoDelay(true)
      const connection: Connection = { socket, due: undefined, head: Buffer.alloc(0), bodyLeft: -1, status: 0 }
      socket.on('data', (chunk: Buffer) => onData(connection, chunk))
      socket.on('close', () => {
        // A request sent just as the server closed the idle connection was never read:
        // it goes again on another connection, still timed from when it was due.
        if (connection.due !== undefined && connection.head.length === 0 && connection.bodyLeft < 0) {
          waiting.unshift(connection.due)
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
  const started = performance.now()
  measuredFrom = started + (warmRequests * 1000) / rate
  while (sent < total) {
    const now = performance.now()
    while (sent < total && started + (sent * 1000) / rate <= now) {
      if (sent === warmRequests) options.onMeasuring?.()
      waiting.push(started + (sent * 1000) / rate)
      sent++
      // The most recently used first, as connection pools do (a rotation through all of them
      // measured far worse tails, from both servers alike).
      const connection = idle.pop()
      if (connection) send(connection)
    }
    // setImmediate, not a 1 ms timer: sending up to a millisecond late would count as the
    // server's latency. This spins the load generator's own core, which it has to itself.
    await new Promise((resolve) => setImmediate(resolve))
  }
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
  latencies.sort((a, b) => a - b)
  return { latencies, non2xx, errors, seconds }
}
