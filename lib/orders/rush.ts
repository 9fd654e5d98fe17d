// A lunch service played on the simulated restaurant, so a newcomer sees the board alive and
// the bench and the board's tests have a realistic load. Guests arrive at the starter and get
// a tracker, dine-in guests put it on a free table, the food comes at a time drawn around the
// target (a few orders late), runners take dine-in trackers back to the pass and clear them,
// to-go guests are paged and clear theirs when they collect. Every move goes through the
// SimulatorService, so the orders see the same radio events a real restaurant sends; paging
// goes through the orders service like a page from the board. Time comes from the Clock, and
// `pace` compresses it (pace 10: a 20-minute lunch in 2 minutes), so tests run it fast.
import type { Clock, TimerHandle } from '../kernel/clock.ts'
import { DomainError } from '../kernel/errors.ts'
import type { Logger } from '../kernel/log.ts'
import type { OrdersService } from './service.ts'
import type { SimulatorService } from './simulator.ts'
import { arrivalGapAt, lateShareAt } from './rush-peak.ts'

export interface RushOptions {
  /** Minutes of restaurant time during which guests arrive (default 20); the last ones then finish. */
  minutes?: number
  /** Restaurant seconds per real second (default 1; 10 plays a lunch ten times faster). */
  pace?: number
  /** The target in seconds: food times are drawn around it (default 300). */
  targetSeconds?: number
  /** Seed of the draws, so a test sees the same lunch every time. */
  seed?: number
  /** A lunch with a peak (lib/orders/rush-peak.ts): about 30 orders out at its height. */
  peak?: boolean
}

export interface RushStatus {
  state: 'stopped' | 'running' | 'finishing'
  pace: number
  /** When guests stop arriving (epoch ms), null when stopped. */
  arrivalsEndAt: number | null
  guests: number
  late: number
  pages: number
}

/** Deterministic draws in [0, 1) (mulberry32): the same seed plays the same lunch. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// Restaurant seconds, drawn uniformly between the two bounds.
const arrivalGap = [10, 40] as const
const walkToTable = [20, 60] as const
const runnerBack = [10, 30] as const
const guestCollects = [20, 60] as const
const toGoShare = 0.2
const lateShare = 0.12

export class LunchRush {
  readonly #clock: Clock
  readonly #simulator: SimulatorService
  readonly #orders: OrdersService
  readonly #log: Logger
  readonly #timers = new Set<TimerHandle>()
  #status: RushStatus = { state: 'stopped', pace: 1, arrivalsEndAt: null, guests: 0, late: 0, pages: 0 }
  #random: () => number = Math.random
  #target = 300
  #inFlight = 0
  /** With a peak: when arrivals began and how long they last (ms of real time). */
  #peak: { from: number; length: number } | null = null

  constructor(deps: { clock: Clock; simulator: SimulatorService; orders: OrdersService; log: Logger }) {
    this.#clock = deps.clock
    this.#simulator = deps.simulator
    this.#orders = deps.orders
    this.#log = deps.log
  }

  status(): RushStatus {
    return { ...this.#status }
  }

  /** Starts the service; resolves once the first guest holds a tracker. */
  async start(options: RushOptions = {}): Promise<RushStatus> {
    this.#simulator.status() // 404 (-5) without the simulated radio
    if (this.#status.state !== 'stopped') throw new DomainError('SIM_INPUT_INVALID', 'a rush is already running: stop it first')
    const minutes = options.minutes ?? 20
    const pace = options.pace ?? 1
    const target = options.targetSeconds ?? 300
    if (!(minutes > 0 && minutes <= 600)) throw new DomainError('SIM_INPUT_INVALID', 'minutes must be more than 0 and at most 600')
    if (!(pace >= 0.1 && pace <= 1000)) throw new DomainError('SIM_INPUT_INVALID', 'pace must be between 0.1 and 1000')
    if (!(target > 0)) throw new DomainError('SIM_INPUT_INVALID', 'targetSeconds must be more than 0')
    this.#random = options.seed === undefined ? Math.random : seededRandom(options.seed)
    this.#target = target
    this.#inFlight = 0
    this.#status = { state: 'running', pace, arrivalsEndAt: this.#clock.now() + (minutes * 60_000) / pace, guests: 0, late: 0, pages: 0 }
    this.#peak = options.peak ? { from: this.#clock.now(), length: (minutes * 60_000) / pace } : null
    this.#log.info({ minutes, pace }, 'lunch rush started')
    await this.#arrive()
    return this.status()
  }

  /** Stops at once: no more arrivals or moves; orders on the board stay as they are. */
  stop(): RushStatus {
    for (const timer of this.#timers) this.#clock.clearTimeout(timer)
    this.#timers.clear()
    if (this.#status.state !== 'stopped') this.#log.info({ guests: this.#status.guests }, 'lunch rush stopped')
    this.#status = { ...this.#status, state: 'stopped', arrivalsEndAt: null }
    return this.status()
  }

  /** How far through the arrivals the service is (0..1); with a peak only. */
  #progress(): number {
    return this.#peak ? (this.#clock.now() - this.#peak.from) / this.#peak.length : 0
  }

  #draw([low, high]: readonly [number, number]): number {
    return low + (high - low) * this.#random()
  }

  /** Runs `step` after `seconds` of restaurant time; a failed step ends that guest's visit. */
  #after(seconds: number, step: () => Promise<void>): void {
    // A move that was under way when the rush stopped schedules nothing more.
    if (this.#status.state === 'stopped') return
    const timer = this.#clock.setTimeout(
      () => {
        this.#timers.delete(timer)
        this.#run(step)
      },
      (seconds * 1000) / this.#status.pace,
    )
    this.#timers.add(timer)
  }

  #run(step: () => Promise<void>): Promise<void> {
    return step().catch((error: Error) => {
      this.#log.warn({ err: error.message }, 'lunch rush: a move was refused')
      this.#leave()
    })
  }

  async #arrive(): Promise<void> {
    if (this.#clock.now() >= (this.#status.arrivalsEndAt ?? 0)) {
      this.#status.state = 'finishing'
      if (this.#inFlight === 0) this.stop()
      return
    }
    this.#after(this.#draw(this.#peak ? arrivalGapAt(this.#progress()) : arrivalGap), () => this.#arrive())
    await this.#seatGuest()
  }

  #seatGuest(): Promise<void> {
    const free = this.#simulator.status().trackers.filter((t) => t.order === null)
    if (!free.length) return Promise.resolve() // every tracker is out: the guest waits for the next one
    const tracker = free[Math.floor(this.#random() * free.length)]!.number
    const toGo = this.#random() < toGoShare
    const late = this.#random() < (this.#peak ? lateShareAt(this.#progress()) : lateShare)
    const foodSeconds = this.#target * (late ? 1.1 + this.#random() * 0.4 : 0.35 + this.#random() * 0.5)
    this.#status.guests += 1
    if (late) this.#status.late += 1
    this.#inFlight += 1
    return this.#run(async () => {
      const { order } = await this.#simulator.start(tracker, { toGo })
      const uuid = order?.uuid
      if (!toGo) this.#after(this.#draw(walkToTable), async () => this.#placeOnTable(tracker, uuid))
      this.#after(foodSeconds, async () => (toGo ? this.#callGuest(tracker, uuid) : this.#runFood(tracker, uuid)))
    })
  }

  /** Whether tracker `number` still carries the order this visit started (not cleared on the board). */
  #stillOurs(tracker: number, uuid: string | undefined): boolean {
    return this.#simulator.status().trackers.find((t) => t.number === tracker)?.order?.uuid === uuid && uuid !== undefined
  }

  async #placeOnTable(tracker: number, uuid: string | undefined): Promise<void> {
    if (!this.#stillOurs(tracker, uuid)) return
    const status = this.#simulator.status()
    const taken = new Set(this.#orders.list().map((o) => o.locationName))
    const free = status.tables.filter((table) => !taken.has(table))
    const tables = free.length ? free : status.tables
    // A refused placement is harmless: the guest keeps the tracker and the food still comes.
    await this.#simulator.place(tracker, tables[Math.floor(this.#random() * tables.length)]!).catch(() => undefined)
  }

  /** The food is at the table: a runner brings the tracker back to the pass a little later. */
  async #runFood(tracker: number, uuid: string | undefined): Promise<void> {
    this.#after(this.#draw(runnerBack), async () => this.#clearAtPass(tracker, uuid))
  }

  /** To-go food is ready: page the guest, who clears the tracker on collecting. */
  async #callGuest(tracker: number, uuid: string | undefined): Promise<void> {
    if (!this.#stillOurs(tracker, uuid)) return this.#leave()
    await this.#orders.page({ name: tracker }, false)
    this.#status.pages += 1
    this.#after(this.#draw(guestCollects), async () => this.#clearAtPass(tracker, uuid))
  }

  async #clearAtPass(tracker: number, uuid: string | undefined): Promise<void> {
    if (this.#stillOurs(tracker, uuid)) await this.#simulator.clear(tracker)
    this.#leave()
  }

  #leave(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1)
    if (this.#status.state === 'finishing' && this.#inFlight === 0) this.stop()
  }
}
