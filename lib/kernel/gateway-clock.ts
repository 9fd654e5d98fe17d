// The gateway's own clock. A Raspberry Pi has no real-time clock: it boots with a saved time
// and is stepped later (NTP, an admin, `date -s`), forwards or backwards. Timestamps taken
// from the system clock would then put an order created before the step hours away from
// "now". This clock reads the wall clock once, then advances with the monotonic clock
// (performance.now(), which no step moves), so every timestamp it gives and every "now" it
// is compared with stay on one timeline. It moves only when told to (shift), which the
// clock watch (clock-watch.ts) does when the system clock was stepped, together with the
// stored timestamps (lib/orders/clock-mend.ts), so that times stay true after a step.
import { performance } from 'node:perf_hooks'
import { SystemClock, type Clock } from './clock.ts'

/** A clock that can say how far the system clock has moved from it and be moved to match. */
export interface AdjustableClock extends Clock {
  /** Milliseconds that never jump (deadlines and durations held in memory). */
  monotonic(): number
  /** System wall clock minus this clock, in ms (positive: the system clock is ahead). */
  drift(): number
  /** Moves this clock's timeline by deltaMs. */
  shift(deltaMs: number): void
  /** Called (at most once per call of now()) so a watch can notice a step on use. */
  onRead(listener: (() => void) | undefined): void
}

export class GatewayClock extends SystemClock implements AdjustableClock {
  /** Epoch ms on this clock's timeline at performance.now() = 0. */
  #base: number
  #onRead: (() => void) | undefined

  constructor(wallNow: number = Date.now(), monotonicNow: number = performance.now()) {
    super()
    this.#base = wallNow - monotonicNow
  }

  override now(): number {
    const now = Math.floor(this.#base + performance.now())
    this.#onRead?.()
    return now
  }

  monotonic(): number {
    return performance.now()
  }

  drift(): number {
    return Date.now() - (this.#base + performance.now())
  }

  shift(deltaMs: number): void {
    this.#base += deltaMs
  }

  onRead(listener: (() => void) | undefined): void {
    this.#onRead = listener
  }
}

/** Whether a clock can be watched and moved (the gateway's own; not a test's ManualClock without it). */
export function isAdjustable(clock: Clock): clock is AdjustableClock {
  const candidate = clock as Partial<AdjustableClock>
  return typeof candidate.drift === 'function' && typeof candidate.shift === 'function' && typeof candidate.monotonic === 'function'
}

/** Milliseconds that never jump: the clock's monotonic reading when it has one, else its now(). */
export function monotonicNow(clock: Clock): number {
  const candidate = clock as Partial<AdjustableClock>
  return typeof candidate.monotonic === 'function' ? candidate.monotonic() : clock.now()
}
