// A ManualClock that is also the gateway's own kind of clock (AdjustableClock): a test steps
// "the system clock" (step) without moving the monotonic one, as NTP or `date -s` does, and
// the gateway's clock watch notices and mends it (lib/kernel/clock-watch.ts).
import type { AdjustableClock } from '../../lib/kernel/gateway-clock.ts'
import { ManualClock } from './manual-clock.ts'

export class SteppingClock extends ManualClock implements AdjustableClock {
  /** How far the system clock was stepped from where the monotonic clock is. */
  #systemStep = 0
  /** How far the gateway's clock was moved (shift) from the monotonic clock. */
  #shifted = 0
  #onRead: (() => void) | undefined
  reads = 0

  override now(): number {
    this.reads++
    const now = super.now() + this.#shifted
    this.#onRead?.()
    return now
  }

  monotonic(): number {
    return super.now()
  }

  /** The system's wall clock. */
  systemNow(): number {
    return super.now() + this.#systemStep
  }

  drift(): number {
    return this.#systemStep - this.#shifted
  }

  shift(deltaMs: number): void {
    this.#shifted += deltaMs
  }

  onRead(listener: (() => void) | undefined): void {
    this.#onRead = listener
  }

  /** The system clock is stepped by ms (positive: forwards). */
  step(ms: number): void {
    this.#systemStep += ms
  }
}
