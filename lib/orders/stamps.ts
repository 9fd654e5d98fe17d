// Which clock each time of an active order was taken on (docs/api.md, "Clock"). Every run of
// the gateway has its own clock (lib/kernel/clock-runs.ts): a box without a real-time clock
// may boot a day behind after a power cut and be stepped when network time answers. A step
// mends what this run stamped on a clock not known right, and nothing else: an order
// created before the cut, or while the system said its clock was synchronised, keeps its
// time, and so its waiting time. Each time remembers the run that took it, or `right` when
// it was taken while the system said its clock was synchronised, in memory and with the
// stored order (`clockRuns`); a time an operation carries over unchanged keeps what it had.
import type { ActiveOrder } from './types.ts'

export const timeFields = ['created', 'stateChanged', 'located', 'pagedAt'] as const
export type TimeField = (typeof timeFields)[number]

/** The run that took each (non-null) time of one order. */
export type ClockRunsOf = Partial<Record<TimeField, string>>

/** Stands for the run of a time stored before runs were recorded: an earlier one, unknown. */
export const unknownRun = 'earlier'
/** Stands for a time taken while the system said its clock was synchronised: no step moves it. */
export const rightClock = 'right'

export class OrderStamps {
  readonly #thisRun: string
  readonly #right: () => boolean
  readonly #byUuid = new Map<string, ClockRunsOf>()

  /** `right`: whether this run's clock is known right now (the system says synchronised). */
  constructor(thisRun: string, right: () => boolean = () => false) {
    this.#thisRun = thisRun
    this.#right = right
  }

  get thisRun(): string {
    return this.#thisRun
  }

  /** An order read from storage: its times keep the runs stored with them (an earlier run when none). */
  loaded(order: ActiveOrder, stored: ClockRunsOf | undefined): void {
    const runs: ClockRunsOf = {}
    for (const field of timeFields) if (order[field] !== null) runs[field] = stored?.[field] ?? unknownRun
    this.#byUuid.set(order.uuid, runs)
  }

  /**
   * The runs of a new version of an order written now: a time that changed was taken on
   * this run's clock (`right` if it is known right). Kept only once the version is written
   * (`set`).
   */
  runsOf(previous: ActiveOrder | undefined, next: ActiveOrder): ClockRunsOf {
    const before = previous ? this.#byUuid.get(previous.uuid) : undefined
    const now = this.#right() ? rightClock : this.#thisRun
    const runs: ClockRunsOf = {}
    for (const field of timeFields) {
      if (next[field] === null) continue
      const kept = previous !== undefined && previous[field] === next[field] ? before?.[field] : undefined
      runs[field] = kept ?? now
    }
    return runs
  }

  set(uuid: string, runs: ClockRunsOf): void {
    this.#byUuid.set(uuid, runs)
  }

  forget(uuid: string): void {
    this.#byUuid.delete(uuid)
  }

  of(uuid: string): ClockRunsOf {
    return { ...this.#byUuid.get(uuid) }
  }

  /** Whether this run's clock took the order's `field` while not known right: a step moves it. */
  stampedNow(uuid: string, field: TimeField): boolean {
    return this.#byUuid.get(uuid)?.[field] === this.#thisRun
  }

  /** The times of `order` this run took while not known right; a step moves only those. */
  fieldsOfThisRun(order: ActiveOrder): TimeField[] {
    return timeFields.filter((field) => order[field] !== null && this.stampedNow(order.uuid, field))
  }

  /**
   * The latest time of the order taken on a clock known right, or by an earlier run
   * `trusted` names (0: none); never this run's own, which a step may correct.
   */
  latestTaken(order: ActiveOrder, trusted: (run: string) => boolean): number {
    const runs = this.#byUuid.get(order.uuid) ?? {}
    let latest = 0
    for (const field of timeFields) {
      const value = order[field]
      const run = runs[field] ?? unknownRun
      if (value !== null && (run === rightClock || (run !== this.#thisRun && trusted(run)))) latest = Math.max(latest, value)
    }
    return latest
  }

  /** Whether any time of the order was taken by an earlier run that `unsure` names. */
  takenOnUnsureClock(uuid: string, unsure: (run: string) => boolean): boolean {
    const runs = this.#byUuid.get(uuid)
    return runs !== undefined && Object.values(runs).some((run) => run !== this.#thisRun && run !== rightClock && unsure(run))
  }
}
