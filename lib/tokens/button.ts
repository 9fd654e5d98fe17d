// The gateway's button. A press opens a 120 s window in which the first access token can be
// generated without a bearer token; generating it closes the window. The window is timed on
// the monotonic clock, so a step of the wall clock neither closes it early nor keeps it open.
import type { Clock } from '../kernel/clock.ts'
import { monotonicNow } from '../kernel/gateway-clock.ts'

export const buttonWindowMs = 120_000

export interface ButtonState {
  open: boolean
  /** When the window closes (ms since epoch), or null when closed. */
  closesAt: number | null
  lastPressedAt: number | null
}

export class ButtonWindow {
  readonly #clock: Clock
  /** When the window closes, on the monotonic clock (monotonicNow), or null when closed. */
  #closesAt: number | null = null
  #lastPressedAt: number | null = null

  constructor(clock: Clock) {
    this.#clock = clock
  }

  press(): ButtonState {
    this.#lastPressedAt = this.#clock.now()
    this.#closesAt = monotonicNow(this.#clock) + buttonWindowMs
    return this.state()
  }

  isOpen(): boolean {
    return this.#closesAt !== null && monotonicNow(this.#clock) < this.#closesAt
  }

  close(): void {
    this.#closesAt = null
  }

  /**
   * Closes an open window and returns when it would have closed, or null when it was not
   * open. Synchronous, so of two concurrent generate calls only one takes the window.
   */
  take(): number | null {
    if (!this.isOpen()) return null
    const closesAt = this.#wallTime(this.#closesAt!)
    this.#closesAt = null
    return closesAt
  }

  /** Gives back a window taken by a generate call that failed, unless a press replaced it. */
  restore(closesAt: number): void {
    const remaining = closesAt - this.#clock.now()
    if (this.#closesAt === null && remaining > 0) this.#closesAt = monotonicNow(this.#clock) + remaining
  }

  state(): ButtonState {
    const open = this.isOpen()
    return { open, closesAt: open ? this.#wallTime(this.#closesAt!) : null, lastPressedAt: this.#lastPressedAt }
  }

  /** A monotonic deadline as the gateway clock's time. */
  #wallTime(monotonicDeadline: number): number {
    return this.#clock.now() + Math.round(monotonicDeadline - monotonicNow(this.#clock))
  }
}
