// Delivers the webhook outbox: per URL one attempt at a time, oldest seq first (a failed
// entry blocks the ones behind it, so receivers see changes in order), retried on the
// configured schedule with ±20 % jitter while the receiver is down. Started after the
// store, it picks up whatever backlog a previous run (or a crash) left behind.
// Receivers check the signed timestamp against their own clock (Standard Webhooks: five
// minutes), so while the gateway knows its clock is wrong (clockGate) nothing is attempted;
// the clock watch says when it may be (lib/kernel/clock-watch.ts). A retry due further ahead
// than the longest retry delay can only come from a clock moved back: it is due at once.
import type { Clock, TimerHandle } from '../../lib/kernel/clock.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { WebhookService } from '../../lib/webhooks/service.ts'
import type { Part } from '../wiring/lifecycle.ts'

export interface DispatcherOptions {
  webhooks: WebhookService
  clock: Clock
  log: Logger
  /** Delays in ms; attempt n waits schedule[n-1], the last one repeating. */
  retrySchedule: number[]
  /** In [0, 1); injectable so tests can pin the jitter. */
  random?: () => number
  /** Whether the clock may sign deliveries now, and when that becomes so (ClockWatch). */
  clockGate?: { trusted(): boolean; on(event: 'trusted', listener: () => unknown): () => void }
}

interface Worker {
  busy: boolean
  timer: TimerHandle | undefined
}

/** The wait before the next attempt after `attempts` failures: the schedule ±20 % jitter. */
export function retryDelay(schedule: number[], attempts: number, random: () => number = Math.random): number {
  const base = schedule[Math.min(Math.max(attempts, 1), schedule.length) - 1]!
  return Math.round(base * (0.8 + 0.4 * random()))
}

export class WebhookDispatcher {
  readonly #options: DispatcherOptions
  readonly #workers = new Map<string, Worker>()
  readonly #inFlight = new Set<Promise<void>>()
  #stopping = new AbortController()
  #running = false
  #unsubscribe: (() => void) | undefined
  #unsubscribeClock: (() => void) | undefined

  constructor(options: DispatcherOptions) {
    this.#options = options
  }

  start(): void {
    this.#running = true
    this.#stopping = new AbortController()
    this.#unsubscribe = this.#options.webhooks.on('enqueued', (url) => this.kick(url))
    this.#unsubscribeClock = this.#options.clockGate?.on('trusted', () => this.#kickAll())
    this.#kickAll()
  }

  #kickAll(): void {
    for (const registration of this.#options.webhooks.registry.all()) this.kick(registration.url)
  }

  /** Wakes the worker of a URL unless it is already delivering or waiting for a retry. */
  kick(url: string): void {
    if (!this.#running) return
    let worker = this.#workers.get(url)
    if (!worker) this.#workers.set(url, (worker = { busy: false, timer: undefined }))
    if (worker.busy || worker.timer) return
    worker.busy = true
    const run = this.#drain(url, worker)
      .catch((error: unknown) => {
        this.#options.log.error({ err: error, url: safeHost(url) }, 'webhook delivery failed unexpectedly')
        // Storage trouble: try again later rather than spin.
        this.#wait(url, worker, this.#options.retrySchedule[0]!)
      })
      .finally(() => {
        worker.busy = false
        this.#inFlight.delete(run)
      })
    this.#inFlight.add(run)
  }

  async #drain(url: string, worker: Worker): Promise<void> {
    const { webhooks, clock, retrySchedule } = this.#options
    const random = this.#options.random ?? Math.random
    while (this.#running) {
      const entry = webhooks.outbox.head(url)
      if (!entry) {
        if (!webhooks.registry.get(url)) this.#workers.delete(url)
        return
      }
      const remaining = entry.nextAttemptAt - clock.now()
      // Further ahead than any delay the schedule gives: the clock was moved back since. Due now.
      const wait = remaining > this.#longestDelay() ? 0 : remaining
      if (wait > 0) return this.#wait(url, worker, wait)
      // Held while the clock is known to be wrong; 'trusted' kicks every URL again.
      if (this.#options.clockGate && !this.#options.clockGate.trusted()) return
      // The change may still be on its way to disk; a receiver never hears of one a crash could undo.
      await webhooks.outbox.headOnDisk(url)
      const result = await webhooks.attempt(entry, (attempts) => retryDelay(retrySchedule, attempts, random), this.#stopping.signal)
      if (result === 'gone' || result === 'disabled') return
    }
  }

  /** The longest delay the retry schedule can give (its largest step, jitter included). */
  #longestDelay(): number {
    return Math.ceil(Math.max(...this.#options.retrySchedule) * 1.2)
  }

  #wait(url: string, worker: Worker, ms: number): void {
    if (!this.#running) return
    worker.timer = this.#options.clock.setTimeout(() => {
      worker.timer = undefined
      this.kick(url)
    }, ms)
  }

  /** Stops scheduling, aborts attempts in flight (their entries stay in the outbox). */
  async stop(): Promise<void> {
    this.#running = false
    this.#unsubscribe?.()
    this.#unsubscribeClock?.()
    this.#stopping.abort()
    for (const worker of this.#workers.values()) this.#options.clock.clearTimeout(worker.timer)
    this.#workers.clear()
    await Promise.allSettled([...this.#inFlight])
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return '?'
  }
}

export function webhookDispatcherPart(options: DispatcherOptions): Part {
  const dispatcher = new WebhookDispatcher(options)
  return {
    name: 'webhooks',
    start: async () => dispatcher.start(),
    stop: async () => {
      await dispatcher.stop()
      options.webhooks.close()
    },
  }
}
