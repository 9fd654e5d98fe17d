// A log destination that may hold some lines back for a moment, in order with the rest.
// The one-line-per-request log (runtime/host/request-log.ts) is most of what the gateway writes.
// Written every event-loop turn, each write was a trip through libuv's thread pool and back
// (a thread woken, a write, the loop woken again); under an even load of single requests
// that cost the gateway about as much kernel time as answering them did
// (docs/decisions/0007-request-log-line.md). Held lines go out after at most heldMs, as soon as holdLimit
// characters wait, and before any line written the ordinary way, so the log keeps the order
// in which things happened.
import type { DestinationStream } from 'pino'
import { SystemClock, type Clock, type TimerHandle } from './clock.ts'

/** How long a held line may wait. */
export const heldMs = 100
/** This many held characters go out at once. */
export const holdLimit = 64 * 1024

type Target = DestinationStream & { flush?: (callback: (error?: Error) => void) => void }

export class HoldingDestination {
  readonly #target: Target
  readonly #clock: Clock
  #held = ''
  #timer: TimerHandle | undefined
  readonly #release = () => this.release()

  /** `clock`: whose timer lets held lines out (the system's unless a test moves time). */
  constructor(target: Target, clock: Clock = new SystemClock()) {
    this.#target = target
    this.#clock = clock
  }

  /** pino writes every line through here: whatever is held goes first. */
  write(line: string): void {
    this.release()
    this.#target.write(line)
  }

  /** A line that may wait up to heldMs (newline-terminated, as pino writes them). */
  hold(line: string): void {
    this.#held += line
    if (this.#held.length >= holdLimit) this.release()
    else this.#timer ??= this.#clock.setTimeout(this.#release, heldMs)
  }

  /** Writes the held lines now. */
  release(): void {
    if (this.#timer) {
      this.#clock.clearTimeout(this.#timer)
      this.#timer = undefined
    }
    if (this.#held === '') return
    const lines = this.#held
    this.#held = ''
    this.#target.write(lines)
  }

  /** logger.flush(): the held lines, then whatever the target buffers. */
  flush(callback: (error?: Error) => void = () => undefined): void {
    this.release()
    if (typeof this.#target.flush === 'function') this.#target.flush(callback)
    else callback()
  }
}
