// The one log line per HTTP request. It is written straight to the logger's destination in
// the same shape pino gives (level, time, the logger's bindings, fields, msg), because going
// through pino.info() (redaction pass, generic serialisation, a fresh ISO date each time)
// cost as much as routing the request did. Its fields are fixed and never secret: method,
// path without the query, status and duration. Lines still go nowhere below level info.
// The lines of one event-loop turn go out in one write: a write per line (each a trip
// through libuv's thread pool) was the next largest cost under load.
import { pino } from 'pino'
import type { Logger } from '../lib/log.ts'

type Destination = { write(line: string): unknown }

/** Above this many buffered characters the lines go out at once rather than at turn's end. */
const flushAt = 64 * 1024

export class RequestLog {
  readonly #log: Logger
  readonly #destination: Destination
  readonly #bindings: string
  #isoMs = -1
  #iso = ''
  #pending = ''
  #scheduled = false
  readonly #flush = () => {
    this.#scheduled = false
    this.flush()
  }

  constructor(log: Logger) {
    const internals = log as unknown as Record<symbol, unknown>
    this.#log = log
    this.#destination = internals[pino.symbols.streamSym] as Destination
    // The logger's bindings as pino renders them: `,"service":"tracker-gateway"`.
    this.#bindings = String(internals[pino.symbols.chindingsSym] ?? '')
  }

  request(method: string, path: string, status: number, ms: number): void {
    if (!this.#log.isLevelEnabled('info')) return
    const now = Date.now()
    if (now !== this.#isoMs) {
      this.#isoMs = now
      this.#iso = new Date(now).toISOString()
    }
    this.#pending +=
      `{"level":30,"time":"${this.#iso}"${this.#bindings},"method":${JSON.stringify(method)},` +
      `"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`
    if (this.#pending.length >= flushAt) this.flush()
    else if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(this.#flush)
    }
  }

  /** Writes the buffered lines now. */
  flush(): void {
    if (this.#pending === '') return
    const lines = this.#pending
    this.#pending = ''
    this.#destination.write(lines)
  }
}
