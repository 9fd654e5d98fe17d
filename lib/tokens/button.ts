// The gateway's button. A press opens a 120 s window in which the first access token can be
// generated without a bearer token; generating it closes the window.
import type { Clock } from '../kernel/clock.ts'

export const buttonWindowMs = 120_000

export interface ButtonState {
  open: boolean
  /** When the window closes (ms since epoch), or null when closed. */
  closesAt: number | null
  lastPressedAt: number | null
}

export class ButtonWindow {
  readonly #clock: Clock
  #closesAt: number | null = null
  #lastPressedAt: number | null = null

  constructor(clock: Clock) {
    this.#clock = clock
  }

  press(): ButtonState {
    const now = this.#clock.now()
    this.#lastPressedAt = now
    this.#closesAt = now + buttonWindowMs
    return this.state()
  }

  isOpen(): boolean {
    return this.#closesAt !== null && this.#clock.now() < this.#closesAt
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
    const closesAt = this.#closesAt
    this.#closesAt = null
    return closesAt
  }

  /** Gives back a window taken by a generate call that failed, unless a press replaced it. */
  restore(closesAt: number): void {
    if (this.#closesAt === null && this.#clock.now() < closesAt) this.#closesAt = closesAt
  }

  state(): ButtonState {
    const open = this.isOpen()
    return { open, closesAt: open ? this.#closesAt : null, lastPressedAt: this.#lastPressedAt }
  }
}
