// The one log line per HTTP request. It is written straight to the logger's destination in
// the same shape pino gives (level, time, the logger's bindings, fields, msg), because going
// through pino.info() (redaction pass, generic serialisation, a fresh ISO date each time)
// cost as much as routing the request did. Its fields are fixed and never secret: method,
// path without the query, status and duration. Lines still go nowhere below level info.
// They are held back for a moment and written together (lib/kernel/log-destination.ts): a write per
// request was the largest cost left under an even load. Bad requests (400 and above) are
// sampled per client address and carry the address and a count (bad-request-sampler.ts).
import { pino } from 'pino'
import { HoldingDestination } from '../../lib/kernel/log-destination.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { keyOf } from '../../lib/tokens/limiter.ts'
import { BadRequestSampler } from './bad-request-sampler.ts'

type Destination = { write(line: string): unknown }

export class RequestLog {
  readonly #log: Logger
  readonly #out: (line: string) => void
  readonly #bindings: string
  #isoMs = -1
  /** The line up to the method, for the current millisecond. */
  #head = ''
  #method = ''
  #path = ''
  /** `"GET","path":"/api/v2/orders","status":` for the last method and path (polls repeat them). */
  #middle = ''

  readonly #badRequests: BadRequestSampler

  constructor(log: Logger, badRequests = new BadRequestSampler()) {
    this.#badRequests = badRequests
    const internals = log as unknown as Record<symbol, unknown>
    this.#log = log
    const destination = internals[pino.symbols.streamSym] as Destination
    // A logger not made by createLogger has no holding destination: its lines go out at once.
    this.#out = destination instanceof HoldingDestination ? (line) => destination.hold(line) : (line) => destination.write(line)
    // The logger's bindings as pino renders them: `,"service":"tracker-gateway"`.
    this.#bindings = String(internals[pino.symbols.chindingsSym] ?? '')
  }

  /** `ip`: the client's address, for bad requests (sampled per address; the line shows it and the count). */
  request(method: string, path: string, status: number, ms: number, ip = ''): void {
    if (!this.#log.isLevelEnabled('info')) return
    let client = ''
    if (status >= 400) {
      // Counted per client (IPv6: its /64, as the connection limits count it).
      const count = this.#badRequests.count(keyOf(ip))
      if (count === 0) return
      client = `,"ip":${JSON.stringify(ip)},"count":${count}`
    }
    // The parts that repeat are kept (issue 30): a line is then four pieces, not nine.
    const now = Date.now()
    if (now !== this.#isoMs) {
      this.#isoMs = now
      this.#head = `{"level":30,"time":"${new Date(now).toISOString()}"${this.#bindings},"method":`
    }
    if (method !== this.#method || path !== this.#path) {
      this.#method = method
      this.#path = path
      this.#middle = `${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":`
    }
    this.#out(`${this.#head}${this.#middle}${status},"ms":${ms}${client},"msg":"request"}\n`)
  }
}
