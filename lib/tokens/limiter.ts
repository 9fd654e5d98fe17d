// Failed authentication per client address: a token bucket of `perMinute` failures that
// refills continuously. An empty bucket means that address answers 429 for credentials that
// do not verify; valid tokens and other addresses are never affected. Refilled on the
// monotonic clock: a wall clock stepped back must not keep an address limited for hours.
import type { Clock } from '../kernel/clock.ts'
import { monotonicNow } from '../kernel/gateway-clock.ts'

/** Addresses remembered at most; the oldest is forgotten first (bounded memory). */
const maxAddresses = 10_000

/** One failure costs `minuteMs` units and `perMinute` units refill each ms: integer math. */
const minuteMs = 60_000

interface Bucket {
  units: number
  at: number
}

export class AuthFailureLimiter {
  readonly #clock: Clock
  readonly #perMinute: number
  readonly #capacity: number
  readonly #buckets = new Map<string, Bucket>()

  constructor(clock: Clock, perMinute: number) {
    this.#clock = clock
    this.#perMinute = perMinute
    this.#capacity = perMinute * minuteMs
  }

  /** Seconds until this address may fail again, or 0 when it is not limited. */
  retryAfter(ip: string): number {
    const bucket = this.#current(keyOf(ip))
    if (!bucket || bucket.units >= minuteMs) return 0
    return Math.max(1, Math.ceil((minuteMs - bucket.units) / this.#perMinute / 1000))
  }

  /** Counts one failure; an already limited address stays limited without going deeper. */
  recordFailure(ip: string): void {
    const key = keyOf(ip)
    const bucket = this.#current(key) ?? { units: this.#capacity, at: monotonicNow(this.#clock) }
    // Attempts answered 429 do not count, so Retry-After stays true however often it retries.
    if (bucket.units < minuteMs) return
    bucket.units -= minuteMs
    this.#buckets.delete(key)
    this.#buckets.set(key, bucket)
    if (this.#buckets.size > maxAddresses) this.#buckets.delete(this.#buckets.keys().next().value!)
  }

  #current(key: string): Bucket | undefined {
    const bucket = this.#buckets.get(key)
    if (!bucket) return undefined
    const now = monotonicNow(this.#clock)
    bucket.units = Math.min(this.#capacity, bucket.units + (now - bucket.at) * this.#perMinute)
    bucket.at = now
    if (bucket.units >= this.#capacity) {
      this.#buckets.delete(key)
      return undefined
    }
    return bucket
  }
}

/**
 * IPv6 clients usually own a whole /64, so one is limited as a unit; IPv4 per address.
 */
export function keyOf(ip: string): string {
  if (!ip.includes(':')) return ip
  const [head, tail = ''] = ip.toLowerCase().split('%')[0].split('::')
  const left = head ? head.split(':') : []
  const right = ip.includes('::') && tail ? tail.split(':') : []
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}

/**
 * "retry in 9 min 58 s": what a refusal that locks an address out for a while says, so a
 * person at a screen knows when to try again (Retry-After says the same to a program).
 */
export function retryIn(seconds: number): string {
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  if (!minutes) return `retry in ${rest} s`
  return rest ? `retry in ${minutes} min ${rest} s` : `retry in ${minutes} min`
}
