// One warning per episode instead of one per occurrence, for failures a client can cause at
// will (issue 25: 2,163 "paging send failed" lines from orders bound to trackers that do not
// exist; an API client could fill the log and the disk). The first occurrence of a kind is
// logged in full, at once. Further ones within the next window are counted and summed up in
// one line at its end ("<message> (repeated)", with the count); a window without any ends the
// episode, and the next occurrence is logged in full again. At most maxKinds kinds are tracked
// at once; occurrences of further kinds are summed up under "other", so neither the lines per
// window nor the memory grow with what a client varies.
import type { Clock, TimerHandle } from './clock.ts'
import type { Logger } from './log.ts'

export interface RepeatedWarningOptions {
  /** Length of a summing-up window. */
  windowMs?: number
  /** Kinds tracked at once. */
  maxKinds?: number
}

interface Episode {
  /** Occurrences since the last line about this kind. */
  count: number
  /** First occurrence of the episode. */
  since: number
}

export const otherKinds = 'other'

export class RepeatedWarning {
  readonly #log: Logger
  readonly #clock: Clock
  readonly #message: string
  readonly #windowMs: number
  readonly #maxKinds: number
  readonly #episodes = new Map<string, Episode>()
  #timer: TimerHandle | undefined

  constructor(log: Logger, clock: Clock, message: string, options: RepeatedWarningOptions = {}) {
    this.#log = log
    this.#clock = clock
    this.#message = message
    this.#windowMs = options.windowMs ?? 60_000
    this.#maxKinds = options.maxKinds ?? 50
  }

  /** One occurrence of `kind`; `fields` are logged when it starts an episode. */
  warn(kind: string, fields: Record<string, unknown>): void {
    const episode = this.#episodes.get(kind)
    if (episode) {
      episode.count++
      return
    }
    if (this.#episodes.size >= this.#maxKinds) {
      const other = this.#episodes.get(otherKinds)
      if (other) other.count++
      else this.#episodes.set(otherKinds, { count: 1, since: this.#clock.now() })
      return
    }
    this.#episodes.set(kind, { count: 0, since: this.#clock.now() })
    this.#log.warn({ ...fields, kind }, this.#message)
    this.#timer ??= this.#clock.setTimeout(this.#flush, this.#windowMs)
  }

  /** Sums up what was counted (at stop): nothing counted is left unsaid. */
  close(): void {
    this.#clock.clearTimeout(this.#timer)
    this.#timer = undefined
    this.#summarise(true)
  }

  readonly #flush = (): void => {
    this.#timer = undefined
    this.#summarise(false)
    if (this.#episodes.size > 0) this.#timer = this.#clock.setTimeout(this.#flush, this.#windowMs)
  }

  #summarise(ending: boolean): void {
    for (const [kind, episode] of this.#episodes) {
      if (episode.count > 0) {
        this.#log.warn({ kind, repeated: episode.count, windowMs: this.#windowMs, sinceMs: this.#clock.now() - episode.since }, `${this.#message} (repeated)`)
        episode.count = 0
        // "other" holds no kind of its own: it is summed up once and forgotten.
        if (!ending && kind !== otherKinds) continue
      }
      this.#episodes.delete(kind)
    }
  }
}
