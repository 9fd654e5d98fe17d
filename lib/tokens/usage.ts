// When and from where each token was last used. Recording a use is a memory write; the
// datastore sees the latest value per token at most once every `flushMs` (and at stop), so
// a busy POS polling every second does not cost a fsynced write per request.
import type { Clock, TimerHandle } from '../kernel/clock.ts'
import type { Logger } from '../kernel/log.ts'

export interface Use {
  at: number
  ip: string
}

export type UseWriter = (id: string, use: Use) => Promise<void>

export class UsageBuffer {
  readonly #clock: Clock
  readonly #log: Logger
  readonly #flushMs: number
  readonly #write: UseWriter
  readonly #pending = new Map<string, Use>()
  #timer: TimerHandle | undefined
  #flushing: Promise<void> | undefined

  constructor(deps: { clock: Clock; log: Logger; flushMs: number; write: UseWriter }) {
    this.#clock = deps.clock
    this.#log = deps.log
    this.#flushMs = deps.flushMs
    this.#write = deps.write
  }

  record(id: string, use: Use): void {
    this.#pending.set(id, use)
    this.#timer ??= this.#clock.setTimeout(() => {
      this.#timer = undefined
      void this.flush()
    }, this.#flushMs)
  }

  /** The unflushed use of a token, newer than what the datastore holds. */
  latest(id: string): Use | undefined {
    return this.#pending.get(id)
  }

  /** A revoked token's pending use is dropped, never written back. */
  forget(id: string): void {
    this.#pending.delete(id)
  }

  async flush(): Promise<void> {
    await this.#flushing
    this.#flushing = this.#flushPending()
    await this.#flushing
  }

  async #flushPending(): Promise<void> {
    const batch = [...this.#pending]
    for (const [id, use] of batch) {
      try {
        await this.#write(id, use)
        // A newer use recorded during the write stays pending for the next flush.
        if (this.#pending.get(id) === use) this.#pending.delete(id)
      } catch (error) {
        this.#log.warn({ err: error, tokenId: id }, 'token last_used not saved; will retry')
      }
    }
    if (this.#pending.size && !this.#timer) {
      this.#timer = this.#clock.setTimeout(() => {
        this.#timer = undefined
        void this.flush()
      }, this.#flushMs)
    }
  }

  /** Writes what is pending and stops the timer (gateway stop). */
  async stop(): Promise<void> {
    this.#clock.clearTimeout(this.#timer)
    this.#timer = undefined
    await this.flush()
    this.#clock.clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
