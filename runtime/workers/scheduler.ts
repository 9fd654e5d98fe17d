// The paging scheduler (docs/api.md, "Paging"; the lease on the tracker: docs/radio.md). A page is a lease: the radio
// is told "buzz for L seconds" and the tracker stops by itself when L runs out, so a lost
// cancel, a lost frame or a crashed gateway can never leave it buzzing for ever.
//  - tracking: the lease is re-sent every refreshMs (well inside L) until stopped;
//  - once: one lease of onceLeaseMs (~60 s), retried a few times if the send fails; when it
//    runs out the orders service is told (the order is no longer paged).
// Pages are chained per tracker (one page in flight per tracker), and a refresh that falls due
// while the previous send is still out is skipped instead of piling up. A stop does not wait
// for a page in flight: the radio sends each page once (no recovery retries: docs/radio.md,
// "Paging (gateway → tracker)"), so a stop sent later reaches the tracker later, and a stuck page
// must not hold a cancel for as long as the radio's send timeout. stop() answers at once;
// the radio gets a stop command a few times in the background (best effort: the lease ends
// it anyway). All timers run on the injected Clock; a single page's end is held on its
// monotonic reading, so a step of the wall clock never lengthens or cuts a lease.
import type { Clock, TimerHandle } from '../../lib/kernel/clock.ts'
import { monotonicNow } from '../../lib/kernel/gateway-clock.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { RepeatedWarning } from '../../lib/kernel/repeated-warning.ts'
import type { Pager } from '../../lib/orders/service.ts'
import type { Radio } from '../../lib/radio/radio.ts'

export interface PagingOptions {
  /** Lease of each tracking page, in seconds. */
  trackingLeaseSeconds: number
  /** How often a tracking page is re-sent (must be well below the lease). */
  refreshMs: number
  /** Duration of a single (tracking false) page. */
  onceLeaseMs: number
  /** Attempts for a single page whose send fails. */
  onceAttempts: number
  /** How many stop commands a cancel sends, and how far apart. */
  stopRepeats: number
  stopIntervalMs: number
}

export const defaultPagingOptions: PagingOptions = {
  trackingLeaseSeconds: 30,
  refreshMs: 10_000,
  onceLeaseMs: 60_000,
  onceAttempts: 3,
  stopRepeats: 3,
  stopIntervalMs: 2_500,
}

export interface PagingDeps {
  radio: Pick<Radio, 'page' | 'cancel'>
  clock: Clock
  log: Logger
  /** A single page ran out (the order is no longer paged). */
  onLapse: (tracker: string) => void
  options?: Partial<PagingOptions>
}

interface Job {
  generation: number
  tracking: boolean
  /** When a single page ends (monotonicNow). */
  endsAt: number
  attempts: number
  timer?: TimerHandle
  lapseTimer?: TimerHandle
  inFlight: boolean
  consecutiveFailures: number
}

export class PagingScheduler implements Pager {
  readonly options: PagingOptions
  readonly #deps: PagingDeps
  readonly #jobs = new Map<string, Job>()
  /** Pending stop repeats per tracker. */
  readonly #stopTimers = new Map<string, TimerHandle>()
  /** The tail of each tracker's send chain. */
  readonly #chains = new Map<string, Promise<void>>()
  /** Bumped by every page or stop of a tracker, so queued sends of an older request are dropped. */
  readonly #generations = new Map<string, number>()
  #closed = false
  /** Failed sends, one line per kind and minute: a client paging orders of absent trackers cannot flood the log. */
  readonly #sendFailures: RepeatedWarning

  constructor(deps: PagingDeps) {
    this.#deps = deps
    this.options = { ...defaultPagingOptions, ...deps.options }
    this.#sendFailures = new RepeatedWarning(deps.log, deps.clock, 'paging send failed')
  }

  get onceLeaseMs(): number {
    return this.options.onceLeaseMs
  }

  isPaging(tracker: string): boolean {
    return this.#jobs.has(tracker)
  }

  /** Trackers being paged, for status and tests. */
  paging(): { tracker: string; tracking: boolean; consecutiveFailures: number }[] {
    return [...this.#jobs].map(([tracker, job]) => ({ tracker, tracking: job.tracking, consecutiveFailures: job.consecutiveFailures }))
  }

  page(tracker: string, options: { tracking: boolean; leaseMs?: number }): void {
    if (this.#closed) return
    this.#drop(tracker)
    const { clock } = this.#deps
    const job: Job = {
      generation: this.#bump(tracker),
      tracking: options.tracking,
      endsAt: monotonicNow(clock) + (options.leaseMs ?? this.options.onceLeaseMs),
      attempts: 0,
      inFlight: false,
      consecutiveFailures: 0,
    }
    this.#jobs.set(tracker, job)
    if (!job.tracking) {
      job.lapseTimer = clock.setTimeout(() => this.#lapse(tracker, job), job.endsAt - monotonicNow(clock))
    }
    this.#sendPage(tracker, job)
  }

  stop(tracker: string): void {
    if (this.#closed) return
    this.#drop(tracker)
    const generation = this.#bump(tracker)
    let sent = 0
    const sendStop = () => {
      this.#stopTimers.delete(tracker)
      if (this.#generations.get(tracker) !== generation) return
      sent++
      this.#enqueue(
        tracker,
        generation,
        async () => {
          await this.#deps.radio.cancel(tracker)
        },
        'stop',
        { jumpQueue: true },
      )
      if (sent < this.options.stopRepeats) this.#stopTimers.set(tracker, this.#deps.clock.setTimeout(sendStop, this.options.stopIntervalMs))
    }
    sendStop()
  }

  /** Shutdown: no more sends; every timer cleared. Leases end the buzzing on their own. */
  close(): void {
    this.#closed = true
    for (const tracker of [...this.#jobs.keys(), ...this.#stopTimers.keys()]) this.#drop(tracker)
    this.#sendFailures.close()
  }

  /** Resolves when every send queued so far has settled (tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.#chains.values()])
  }

  #bump(tracker: string): number {
    const generation = (this.#generations.get(tracker) ?? 0) + 1
    this.#generations.set(tracker, generation)
    return generation
  }

  #drop(tracker: string): void {
    const job = this.#jobs.get(tracker)
    if (job) {
      this.#deps.clock.clearTimeout(job.timer)
      this.#deps.clock.clearTimeout(job.lapseTimer)
      this.#jobs.delete(tracker)
    }
    this.#deps.clock.clearTimeout(this.#stopTimers.get(tracker))
    this.#stopTimers.delete(tracker)
  }

  #lapse(tracker: string, job: Job): void {
    if (this.#jobs.get(tracker) !== job) return
    this.#drop(tracker)
    this.#deps.onLapse(tracker)
  }

  #sendPage(tracker: string, job: Job): void {
    const { clock } = this.#deps
    const leaseSeconds = job.tracking ? this.options.trackingLeaseSeconds : Math.max(1, Math.ceil((job.endsAt - monotonicNow(clock)) / 1000))
    job.inFlight = true
    job.attempts++
    if (job.tracking && job.timer === undefined) this.#arm(tracker, job)
    void this.#enqueue(
      tracker,
      job.generation,
      async () => {
        try {
          await this.#deps.radio.page(tracker, leaseSeconds)
          job.consecutiveFailures = 0
        } catch (error) {
          job.consecutiveFailures++
          throw error
        }
      },
      'page',
    ).then((ok) => {
      job.inFlight = false
      if (this.#jobs.get(tracker) !== job || job.tracking || ok) return
      // A single page that did not get out is retried a few times within its lease.
      if (job.attempts < this.options.onceAttempts) {
        job.timer = clock.setTimeout(() => this.#retryOnce(tracker, job), this.options.refreshMs)
      }
    })
  }

  /** The tracking cadence: fixed ticks; a tick that finds the last send still out is skipped. */
  #arm(tracker: string, job: Job): void {
    job.timer = this.#deps.clock.setTimeout(() => {
      if (this.#jobs.get(tracker) !== job) return
      this.#arm(tracker, job)
      if (!job.inFlight) this.#sendPage(tracker, job)
    }, this.options.refreshMs)
  }

  #retryOnce(tracker: string, job: Job): void {
    if (this.#jobs.get(tracker) !== job || monotonicNow(this.#deps.clock) >= job.endsAt) return
    this.#sendPage(tracker, job)
  }

  /**
   * Runs one radio send after the tracker's previous one (at once with jumpQueue; later sends
   * still wait for it); false when it failed or was stale.
   */
  #enqueue(tracker: string, generation: number, send: () => Promise<void>, what: string, options: { jumpQueue?: boolean } = {}): Promise<boolean> {
    const previous = this.#chains.get(tracker) ?? Promise.resolve()
    const run = (options.jumpQueue ? Promise.resolve() : previous).then(async () => {
      if (this.#generations.get(tracker) !== generation) return false
      try {
        await send()
        return true
      } catch (error) {
        this.#sendFailures.warn(failureKind(what, error), { err: error, tracker, command: what })
        return false
      }
    })
    const tail = Promise.all([previous, run]).then(() => undefined)
    this.#chains.set(tracker, tail)
    void tail.then(() => {
      if (this.#chains.get(tracker) === tail) this.#chains.delete(tracker)
    })
    return run
  }
}

/** A failure's kind: the command and its error's words, numbers and addresses left out (they vary per tracker). */
function failureKind(command: string, error: unknown): string {
  const words = error instanceof Error ? error.message : String(error)
  return `${command}: ${words.slice(0, 80).replace(/\b(0x)?[0-9a-f]*[0-9][0-9a-f]*\b/gi, '#')}`
}
