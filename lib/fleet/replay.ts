// Headquarters' requests to publish again what it missed: `<prefix>/<siteId>/replay` with
// `{"from":F,"to":T}` asks for every change this site published with F <= seq <= T. They are
// served from the outbox's replay window (the published entries it still holds), byte for
// byte the messages first published, on the usual events and history topics. A token bucket
// bounds the work a request can cause (`fleet.replayPerMinute` changes a minute, a request
// costing one more), one replay runs at a time, and a malformed or excess request is dropped:
// a misbehaving headquarters cannot make a site do more than that.
import type { Clock } from '../kernel/clock.ts'
import type { FleetOutbox, FleetOutboxEntry } from './outbox.ts'

export interface ReplayRequest {
  from: number
  to: number
}

/** A request's payload, or why it is refused. */
export function parseReplayRequest(payload: Buffer | string): ReplayRequest | { error: string } {
  let body: unknown
  try {
    body = JSON.parse(payload.toString())
  } catch {
    return { error: 'not JSON' }
  }
  const { from, to } = (body ?? {}) as Record<string, unknown>
  const valid = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0
  if (!valid(from) || !valid(to)) return { error: 'from and to must be non-negative integers' }
  if (from > to) return { error: 'from is above to' }
  return { from, to }
}

/** A token bucket refilled continuously: `perMinute` tokens a minute, at most `perMinute` saved. */
export class ReplayBudget {
  readonly #perMinute: number
  readonly #clock: Clock
  #tokens: number
  #at: number

  constructor(perMinute: number, clock: Clock) {
    this.#perMinute = perMinute
    this.#clock = clock
    this.#tokens = perMinute
    this.#at = clock.now()
  }

  get available(): number {
    const now = this.#clock.now()
    this.#tokens = Math.min(this.#perMinute, this.#tokens + ((now - this.#at) * this.#perMinute) / 60_000)
    this.#at = now
    return Math.floor(this.#tokens)
  }

  /** Takes up to `wanted` tokens; returns how many were granted. */
  take(wanted: number): number {
    const granted = Math.max(0, Math.min(wanted, this.available))
    this.#tokens -= granted
    return granted
  }
}

export type ReplayOutcome =
  | { served: true; request: ReplayRequest; entries: number; firstSeq: number | null; lastSeq: number | null; replayAfter: number }
  | { served: false; reason: string }

export class FleetReplayer {
  readonly #outbox: FleetOutbox
  readonly #budget: ReplayBudget
  #busy = false

  constructor(outbox: FleetOutbox, budget: ReplayBudget) {
    this.#outbox = outbox
    this.#budget = budget
  }

  /**
   * Serves one request: publishes (through `publish`, awaited per entry, so a closed
   * connection stops it) the held entries of its range, as many as the budget allows.
   */
  async serve(payload: Buffer | string, publish: (entry: FleetOutboxEntry) => Promise<void>): Promise<ReplayOutcome> {
    const request = parseReplayRequest(payload)
    if ('error' in request) return { served: false, reason: `malformed request: ${request.error}` }
    if (this.#busy) return { served: false, reason: 'a replay is already running' }
    // The request itself costs a token, so even empty ones cannot be sent without end.
    if (this.#budget.take(1) < 1) return { served: false, reason: 'replay budget spent' }
    this.#busy = true
    try {
      const limit = this.#budget.available
      const entries = await this.#outbox.published(request.from, request.to, limit)
      this.#budget.take(entries.length)
      for (const entry of entries) await publish(entry)
      return {
        served: true,
        request,
        entries: entries.length,
        firstSeq: entries[0]?.seq ?? null,
        lastSeq: entries.at(-1)?.seq ?? null,
        replayAfter: this.#outbox.replayAfter,
      }
    } finally {
      this.#busy = false
    }
  }
}
