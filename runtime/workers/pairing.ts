// Repeater pairing windows (POST /api/v2/repeaters/beginPairing and endPairing). The radio
// stack opens joining for at most 254 s at a time, so a longer window is opened in chunks:
// each chunk is re-armed a few seconds before it runs out, on the injected clock. A radio
// that comes back up while a window is open gets the rest of the window re-applied.
import type { Clock, TimerHandle } from '../../lib/kernel/clock.ts'
import { monotonicNow } from '../../lib/kernel/gateway-clock.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { Radio } from '../../lib/radio/radio.ts'
import type { PairingState } from './pairing-state.ts'
export type { PairingState } from './pairing-state.ts'

export const maxStackSeconds = 254
/** Re-arm this long before a chunk ends, so joining never lapses between chunks. */
const rearmMarginMs = 5000

export interface PairingOptions {
  radio: Radio
  clock: Clock
  log: Logger
  /** The longest window accepted (the HTTP API allows 254 s; the CLI may allow more). */
  maxWindowSeconds?: number
}

export class PairingScheduler {
  readonly #radio: Radio
  readonly #clock: Clock
  readonly #log: Logger
  readonly #maxWindowSeconds: number
  #until: number | null = null
  #timer: TimerHandle | undefined
  #unsubscribe: (() => void) | undefined

  constructor(options: PairingOptions) {
    this.#radio = options.radio
    this.#clock = options.clock
    this.#log = options.log
    this.#maxWindowSeconds = options.maxWindowSeconds ?? 3600
    this.#unsubscribe = this.#radio.on('status', ({ up }) => {
      if (up && this.isOpen()) void this.#arm()
    })
  }

  isOpen(): boolean {
    return this.#until !== null && monotonicNow(this.#clock) < this.#until
  }

  async state(): Promise<PairingState> {
    const open = this.isOpen()
    const up = (await this.#radio.info()).up
    // Held on the monotonic clock (a step of the wall clock moves no window); told as a time.
    return { open, until: open ? this.#clock.now() + Math.round(this.#until! - monotonicNow(this.#clock)) : null, radioUp: up }
  }

  /** Opens (or re-opens) a window of `seconds`; 0 closes it. */
  async begin(seconds: number): Promise<PairingState> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > this.#maxWindowSeconds) {
      throw new RangeError(`seconds must be an integer from 0 to ${this.#maxWindowSeconds}`)
    }
    if (seconds === 0) return this.end()
    this.#until = monotonicNow(this.#clock) + seconds * 1000
    await this.#arm()
    return this.state()
  }

  async end(): Promise<PairingState> {
    const wasOpen = this.#until !== null
    this.#until = null
    this.#clock.clearTimeout(this.#timer)
    this.#timer = undefined
    if (wasOpen || (await this.#radio.info()).permitJoinUntil !== null) {
      try {
        await this.#radio.permitJoin(0)
      } catch (error) {
        this.#log.warn({ err: error }, 'closing joining on the radio failed (it closes by itself when its window ends)')
      }
    }
    return this.state()
  }

  /** Opens joining for the next chunk of the window and schedules the re-arm or the end. */
  async #arm(): Promise<void> {
    this.#clock.clearTimeout(this.#timer)
    this.#timer = undefined
    const until = this.#until
    if (until === null) return
    const remainingMs = until - monotonicNow(this.#clock)
    if (remainingMs <= 0) {
      this.#until = null
      return
    }
    const chunkSeconds = Math.min(maxStackSeconds, Math.ceil(remainingMs / 1000))
    const last = chunkSeconds * 1000 >= remainingMs
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined
        if (last) {
          // The radio closes by itself at the end of its last chunk.
          if (this.#until === until) this.#until = null
        } else void this.#arm()
      },
      last ? remainingMs : chunkSeconds * 1000 - rearmMarginMs,
    )
    try {
      await this.#radio.permitJoin(chunkSeconds)
    } catch (error) {
      this.#log.warn({ err: error }, 'opening joining on the radio failed; re-applied when the radio is back')
    }
  }

  /** Shutdown: closes any open window. */
  async stop(): Promise<void> {
    this.#unsubscribe?.()
    this.#unsubscribe = undefined
    if (this.#until !== null) await this.end()
  }
}
