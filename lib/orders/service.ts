// OrdersService: the active orders, driven by the API and by the radio through the one
// state machine (machine.ts). Operations run one at a time, so the machine always sees the
// state every earlier operation left. Each write is appended with the operation's SyncBatch
// and recorded in the change log (seq; the webhook and fleet outboxes append with the same
// batch; live listeners such as the WebSocket hub hear it at once); the caller is answered
// once the batch is durable. Paging effects (the radio) wait for that too: a tracker is
// never paged or stopped for a write a power cut could still take back (#serial).
//
// Clearing crosses two stores (docs/architecture.md, Storage): the summary goes into history first
// (idempotent on uuid), then the order leaves NeDB. open() removes any active order whose
// uuid is already in history, so a crash between the two steps loses nothing and never
// leaves an order in both places.
//
// Each stored version carries the change it was written for (seq reserved before the write,
// type, time). A crash between the write and the record would otherwise leave a durable
// change nobody is ever told about (no webhook, no fleet event: a receiver would keep a
// cleared order forever); resume() records every stored change above the change log's
// watermark again, with its own seq, so receivers may see it twice but never miss it. A
// clear keeps the cleared version (a tombstone) until its change is recorded, for the same
// reason.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../kernel/clock.ts'
import { DomainError } from '../kernel/errors.ts'
import type { ChangeLog } from '../changes/change-log.ts'
import type { HistoryStore } from '../history/store.ts'
import type { TrackerInventory } from '../inventory/trackers.ts'
import type { Logger } from '../kernel/log.ts'
import type { RadioEvents } from '../radio/radio.ts'
import { SyncBatch, type Collection, type Store } from '../store/db.ts'
import { shiftOrderTimes } from './clock-mend.ts'
import type { FaultPoint } from './fault.ts'
import { ActiveSet } from './active-set.ts'
import { OrderStamps, timeFields, type ClockRunsOf } from './stamps.ts'
import { findByRef, step, type OrdersAction, type OrderWrite, type PagingEffect, type StepResult } from './machine.ts'
import { summaryOf, type ActiveOrder, type ChangeType, type OrderRef } from './types.ts'
import type { CreateInput, OrderResult } from './types.ts'
export type { CreateInput, OrderResult } from './types.ts'

/** The change a stored version was written for. */
interface ChangeStamp {
  seq: number
  type: ChangeType
  at: number
}

/** `clockRuns`: the run whose clock took each time (stamps.ts); absent: an earlier run. */
type StoredOrder = ActiveOrder & { _id: string; change?: ChangeStamp; clockRuns?: ClockRunsOf }

/** A stored change that may not have reached the change log before a crash. */
interface Unannounced {
  change: ChangeStamp
  order: ActiveOrder
}

/** What the orders service needs from the paging scheduler. */
export interface Pager {
  /** How long a single (non-tracking) page lasts. */
  readonly onceLeaseMs: number
  /** Starts (or restarts) paging; leaseMs shortens a single page resumed after a restart. */
  page(tracker: string, options: { tracking: boolean; leaseMs?: number }): void
  /** Stops paging at once (the radio is told in the background). */
  stop(tracker: string): void
}

/**
 * Where the orders service keeps the active orders: each stored under its uuid (its `_id`,
 * lib/store's KeyedBy), so a new version is one put() found through NeDB's `_id` index.
 */
export function activeOrdersCollection(store: Store): Promise<Collection<ActiveOrder>> {
  return store.collection<ActiveOrder>('activeorders', [], { key: 'uuid' })
}

export interface OrdersDeps {
  /** activeOrdersCollection(). */
  collection: Collection<ActiveOrder>
  history: Pick<HistoryStore, 'insert' | 'has' | 'get'>
  changes: Pick<ChangeLog, 'record' | 'reserve' | 'announcedThrough'>
  trackers: TrackerInventory
  pager: Pager
  clock: Clock
  log: Logger
  newUuid?: () => string
  /** Test-only crash points (see fault.ts); a no-op in production. */
  fault?: (point: FaultPoint) => void
  /**
   * This run's clock (lib/kernel/clock-runs.ts): its id, which the times it takes belong
   * to, and whether it is known right now (the system says synchronised).
   */
  clockRun?: { id: string; right(): boolean }
}

/** The address that stands in for a tracker under `dummy_tracker_address=true`. */
export function dummyTrackerAddress(name: number): string {
  return `dummy-${name}`
}

export class OrdersService {
  readonly #deps: OrdersDeps
  readonly #active: ActiveSet
  /** Which run's clock took each time of each active order. */
  readonly #stamps: OrderStamps
  #queue: Promise<unknown> = Promise.resolve()
  /** The paging effects applied last (each operation's wait for this and its own durability). */
  #paging: Promise<void> = Promise.resolve()
  #revision = 0
  /** Clears a crash interrupted, finished by open(); their ORDER_CLEARED is recorded by resume(). */
  #recovered: ActiveOrder[]
  /** Stored changes a crash may have kept from the change log; resume() records them again. */
  #unannounced: Unannounced[]

  private constructor(deps: OrdersDeps, active: ActiveOrder[], stamps: OrderStamps, recovered: ActiveOrder[], unannounced: Unannounced[]) {
    this.#deps = deps
    this.#active = new ActiveSet(active)
    this.#stamps = stamps
    this.#recovered = recovered
    this.#unannounced = unannounced
  }

  static async open(deps: OrdersDeps): Promise<OrdersService> {
    const docs = (await deps.collection.find({})) as StoredOrder[]
    const announced = deps.changes.announcedThrough
    const active: ActiveOrder[] = []
    const recovered: ActiveOrder[] = []
    const unannounced: Unannounced[] = []
    const stamps = new OrderStamps(deps.clockRun?.id ?? 'this', deps.clockRun ? () => deps.clockRun!.right() : undefined)
    for (const { _id, change, clockRuns, ...order } of docs) {
      const summary = deps.history.get(order.uuid)
      const pending = change && change.seq > announced ? { change, order } : undefined
      if (change?.type === 'ORDER_CLEARED') {
        // A clear written in full (history, then this tombstone); only its removal was left.
        await deps.collection.remove({ _id: order.uuid })
        if (pending) unannounced.push(pending)
        continue
      }
      if (summary) {
        // Cleared, but the crash came before the tombstone: finish the clear.
        await deps.collection.remove({ _id: order.uuid })
        deps.log.warn({ uuid: order.uuid, name: order.name }, 'finished clearing an order already in history')
        recovered.push({ ...order, state: 'cleared', stateChanged: summary.orderCleared, paged: false, tracking: false, pagedAt: null })
        continue
      }
      if (pending) unannounced.push(pending)
      active.push(order)
      stamps.loaded(order, clockRuns)
    }
    active.sort(byCreated)
    unannounced.sort((a, b) => a.change.seq - b.change.seq)
    await deps.trackers.reconcile(active)
    return new OrdersService(deps, active, stamps, recovered, unannounced)
  }

  /** Changes with every write to the active set (cached presentations key on it). */
  get revision(): number {
    return this.#revision
  }

  list(): ActiveOrder[] {
    return Array.from(this.#active, (o) => ({ ...o }))
  }

  get(ref: OrderRef): ActiveOrder {
    const order = findByRef(this.#active, ref)
    if (!order) throw new DomainError('ORDER_NOT_FOUND')
    return { ...order }
  }

  /**
   * Resolves once every operation queued so far has finished and its paging effects are
   * applied (tests, simulator answers).
   */
  async idle(): Promise<void> {
    for (;;) {
      const tail = this.#queue
      await tail
      const paging = this.#paging
      await paging
      if (tail === this.#queue && paging === this.#paging) return
    }
  }

  /**
   * Runs `task` between two operations: no order write, tracker binding or change is half
   * done while it runs, and none starts until it ends (a backup takes its picture here).
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task)
    this.#queue = run.catch(() => undefined)
    return run
  }

  create(input: CreateInput): Promise<OrderResult> {
    return this.#serial(async (batch, paging) => {
      const known = this.#deps.trackers.byNumber(input.name)?.address
      const tracker = known ?? (input.dummyTracker ? dummyTrackerAddress(input.name) : null)
      const result = await this.#run(
        {
          kind: 'create',
          name: input.name,
          orderType: input.orderType,
          locationName: input.locationName,
          tracker,
          requireTracker: input.requireTracker,
          at: this.#deps.clock.now(),
          uuid: this.#newUuid(),
          ...(input.recalled ? { recalled: input.recalled } : {}),
        },
        batch,
        paging,
      )
      return { order: result.order!, outcome: result.outcome }
    })
  }

  clear(ref: OrderRef): Promise<ActiveOrder> {
    return this.#serial(async (batch, paging) => (await this.#run({ kind: 'clear', ref, at: this.#deps.clock.now() }, batch, paging)).order!)
  }

  clearAll(): Promise<ActiveOrder[]> {
    return this.#serial(async (batch, paging) => (await this.#run({ kind: 'clearAll', at: this.#deps.clock.now() }, batch, paging)).writes.map((w) => w.order))
  }

  page(ref: OrderRef, tracking: boolean): Promise<ActiveOrder> {
    return this.#serial(async (batch, paging) => (await this.#run({ kind: 'page', ref, tracking, at: this.#deps.clock.now() }, batch, paging)).order!)
  }

  pagingStatus(ref: OrderRef): { paged: boolean } {
    return { paged: this.get(ref).paged }
  }

  cancelPage(ref: OrderRef): Promise<OrderResult> {
    return this.#serial(async (batch, paging) => {
      const result = await this.#run({ kind: 'cancelPage', ref, at: this.#deps.clock.now() }, batch, paging)
      return { order: result.order!, outcome: result.outcome }
    })
  }

  /** A single page ran its course (called by the scheduler). */
  pageLapsed(tracker: string): Promise<void> {
    return this.#background('pageLapsed', async (batch, paging) => {
      await this.#run({ kind: 'pageLapsed', tracker, at: this.#deps.clock.now() }, batch, paging)
    })
  }

  /**
   * The clock was stepped (clock-mend.ts): moves the times this run's clock took of every
   * active order by deltaMs (not those an earlier run took: that clock was not stepped,
   * stamps.ts) and, in the same tick, the clock itself (`moveClock`), so no reader sees one
   * moved without the other; then stores the moved times. Queued like any operation, so no
   * change is stamped on one timeline and stored on the other. Records no change: nothing
   * about the orders changed but the clock they are measured by. Answers how many orders
   * had a time moved.
   */
  shiftTimes(deltaMs: number, moveClock: () => void): Promise<number> {
    return this.#serial(async (batch) => {
      const moved: ActiveOrder[] = []
      for (const order of this.#active) {
        const fields = this.#stamps.fieldsOfThisRun(order)
        if (fields.length === 0) continue
        shiftOrderTimes(order, deltaMs, fields)
        moved.push(order)
      }
      moveClock()
      this.#revision++
      // The trackers' times too (in memory before this returns): availability is judged by them.
      const trackers = this.#deps.trackers.shiftTimes(deltaMs, batch)
      for (const { uuid, created, stateChanged, located, pagedAt } of moved) {
        await this.#deps.collection.update({ _id: uuid }, { $set: { created, stateChanged, located, pagedAt } }, { durability: batch })
      }
      await trackers
      return moved.length
    })
  }

  /**
   * The gateway's clock has just become known right: a time an earlier run took that lies
   * after it was taken on a clock that was ahead (a run that never heard "synchronised"),
   * which no step of this run mends. Each such time is brought back to now (the least that
   * is certainly true: the order exists, so it is not younger than that); its tag stays, so
   * the order is still counted among those whose waiting time may be off. Stored like a
   * step's mend; records no change. Answers how many orders had a time brought back.
   */
  bringBackFromFuture(): Promise<number> {
    return this.#serial(async (batch) => {
      const now = this.#deps.clock.now()
      const moved: ActiveOrder[] = []
      for (const order of this.#active) {
        const ahead = timeFields.filter((field) => (order[field] ?? -Infinity) > now && !this.#stamps.stampedNow(order.uuid, field))
        if (ahead.length === 0) continue
        for (const field of ahead) order[field] = now
        moved.push(order)
      }
      if (moved.length > 0) this.#revision++
      for (const { uuid, created, stateChanged, located, pagedAt } of moved) {
        await this.#deps.collection.update({ _id: uuid }, { $set: { created, stateChanged, located, pagedAt } }, { durability: batch })
      }
      return moved.length
    })
  }

  /**
   * The latest time an active order carries that was taken on a clock known right or by an
   * earlier run `trusted` names (0 for none): part of the clock's high-water mark.
   */
  latestTime(trusted: (run: string) => boolean = () => true): number {
    let latest = 0
    for (const order of this.#active) latest = Math.max(latest, this.#stamps.latestTaken(order, trusted))
    return latest
  }

  /**
   * How many active orders carry a time an earlier run took on a clock it never knew to be
   * right (`unsure`, lib/kernel/clock-runs.ts): no step can mend those any more.
   */
  ordersOnUnsureClock(unsure: (run: string) => boolean): number {
    let count = 0
    for (const order of this.#active) if (this.#stamps.takenOnUnsureClock(order.uuid, unsure)) count++
    return count
  }

  /**
   * At start-up, once every change consumer is attached: records again (same seq) the stored
   * changes a crash may have kept from the change log, records the ORDER_CLEARED of clears a
   * crash interrupted, and re-arms paging (tracking pages resume, single pages get their
   * remaining time).
   */
  resume(): Promise<void> {
    return this.#serial(async (batch, paging) => {
      for (const { change, order } of this.#unannounced.splice(0)) {
        await this.#deps.changes.record(change.type, order, { seq: change.seq, at: change.at }, batch)
      }
      for (const order of this.#recovered.splice(0)) await this.#deps.changes.record('ORDER_CLEARED', order, undefined, batch)
      const now = this.#deps.clock.now()
      for (const order of this.#active) {
        if (!order.paged || order.tracker === null) continue
        if (order.tracking) {
          this.#deps.pager.page(order.tracker, { tracking: true })
          continue
        }
        const remaining = (order.pagedAt ?? 0) + this.#deps.pager.onceLeaseMs - now
        if (remaining > 0) this.#deps.pager.page(order.tracker, { tracking: false, leaseMs: remaining })
        else await this.#run({ kind: 'pageLapsed', tracker: order.tracker, at: now }, batch, paging)
      }
    })
  }

  // Radio events. Each is queued at once, in arrival order, so a start is never overtaken
  // by the location report that follows it.

  trackerStarted(event: RadioEvents['trackerStarted']): Promise<void> {
    return this.#background('trackerStarted', async (batch, paging) => {
      await this.#deps.trackers.captured({ address: event.address, number: event.number, at: event.at }, batch)
      await this.#run(
        { kind: 'radioStart', address: event.address, number: event.number, orderType: event.orderType, at: event.at, uuid: this.#newUuid() },
        batch,
        paging,
      )
    })
  }

  trackerLocated(event: RadioEvents['trackerLocated']): Promise<void> {
    return this.#background('trackerLocated', async (batch, paging) => {
      await this.#deps.trackers.seen({ address: event.address, at: event.at }, batch)
      await this.#run({ kind: 'radioLocate', address: event.address, table: event.table, at: event.at }, batch, paging)
    })
  }

  trackerCleared(event: RadioEvents['trackerCleared']): Promise<void> {
    return this.#background('trackerCleared', async (batch, paging) => {
      await this.#deps.trackers.seen({ address: event.address, at: event.at }, batch)
      await this.#run({ kind: 'radioClear', address: event.address, at: event.at }, batch, paging)
    })
  }

  trackerSeen(event: RadioEvents['trackerSeen']): Promise<void> {
    return this.#background('trackerSeen', async (batch) => {
      await this.#deps.trackers.seen(event, batch)
    })
  }

  /** A device left the radio network: a tracker among them leaves the inventory. */
  deviceLeft(event: RadioEvents['deviceLeft']): Promise<void> {
    return this.#background('deviceLeft', async (batch) => {
      await this.#deps.trackers.left(event.address, batch)
    })
  }

  #newUuid(): string {
    return (this.#deps.newUuid ?? randomUUID)()
  }

  /**
   * Operations run one at a time, but the next starts as soon as this one's writes are
   * appended: each operation writes with its own SyncBatch, and its caller is answered once
   * the batch is on disk. Concurrent requests so share fsyncs (group commit) instead of
   * queueing behind each other's. The operation's paging effects are collected meanwhile and
   * applied once its batch is durable (#pageOnceDurable).
   */
  #serial<T>(operation: (batch: SyncBatch, paging: PagingEffect[]) => Promise<T>): Promise<T> {
    const batch = new SyncBatch()
    const paging: PagingEffect[] = []
    const run = this.#queue.then(() => operation(batch, paging))
    this.#queue = run.catch(() => undefined)
    const paged = this.#pageOnceDurable(run, batch, paging)
    return run.then(async (value) => {
      await batch.durable()
      await paged
      return value
    })
  }

  /**
   * Applies an operation's paging effects once every write it appended is durable, and after
   * those of every earlier operation (batches on different files may become durable out of
   * order; a stop must not overtake the page before it). A crash before then loses the write
   * and the page together: the tracker never buzzes for an order the restarted gateway has
   * not paged. The effects of writes appended by an operation that failed later, or whose
   * fsync failed, are applied too: the running gateway serves those writes, and the radio
   * follows what it serves.
   */
  #pageOnceDurable(run: Promise<unknown>, batch: SyncBatch, paging: PagingEffect[]): Promise<void> {
    const settled = run.then(
      () => {
        if (paging.length > 0) this.#deps.fault?.('crash-before-paging-is-durable')
        return batch.durable()
      },
      () => batch.durable(),
    )
    const earlier = this.#paging
    this.#paging = Promise.all([earlier, settled.catch(() => undefined)]).then(() => {
      for (const effect of paging) this.#apply(effect)
    })
    return this.#paging
  }

  /** Radio and scheduler work: queued like requests, failures logged (nobody to answer). */
  #background(what: string, operation: (batch: SyncBatch, paging: PagingEffect[]) => Promise<void>): Promise<void> {
    return this.#serial(operation).catch((error: unknown) => {
      this.#deps.log.error({ err: error, event: what }, 'order update from the radio failed')
    })
  }

  async #run(action: OrdersAction, batch: SyncBatch, paging: PagingEffect[]): Promise<StepResult> {
    const result = step(this.#active, action)
    for (const write of result.writes) await this.#commit(write, batch, paging)
    return result
  }

  /**
   * Appended (its fsync joins the batch), then visible, then recorded as a change; its paging
   * effects join the operation's, applied once the batch is durable (#pageOnceDurable).
   */
  async #commit(write: OrderWrite, batch: SyncBatch, paging: PagingEffect[]): Promise<void> {
    const { collection, history, changes, trackers } = this.#deps
    const previous = this.#active.byUuid(write.order.uuid)
    const reserved = await changes.reserve()
    const clockRuns = this.#stamps.runsOf(previous, write.order)
    const thisRun = this.#stamps.thisRun
    const stored = { ...write.order, change: { seq: reserved.seq, type: write.type, at: reserved.at } satisfies ChangeStamp, clockRuns }
    if (write.type === 'ORDER_CLEARED') {
      try {
        history.insert(summaryOf(write.order, write.order.stateChanged), {
          orderStarted: clockRuns.created === thisRun,
          orderLocated: clockRuns.located === thisRun,
          orderCleared: clockRuns.stateChanged === thisRun,
        })
      } catch (error) {
        throw new DomainError('STORAGE_UNAVAILABLE', 'history', { cause: error })
      }
      this.#deps.fault?.('crash-after-history-insert')
    }
    // A cleared order is stored as a tombstone until its change is recorded (removed below).
    await collection.put(stored, { durability: batch })
    this.#active.apply(write)
    if (write.type === 'ORDER_CLEARED') this.#stamps.forget(write.order.uuid)
    else this.#stamps.set(write.order.uuid, clockRuns)
    this.#revision++
    if (previous?.tracker && previous.tracker !== write.order.tracker) await trackers.bind(previous.tracker, null, batch)
    if (write.type === 'ORDER_CLEARED' && write.order.tracker) await trackers.bind(write.order.tracker, null, batch)
    else if (write.order.tracker) await trackers.bind(write.order.tracker, { uuid: write.order.uuid, name: write.order.name }, batch)
    await changes.record(write.type, write.order, reserved, batch)
    if (write.type === 'ORDER_CLEARED') {
      // Not awaited, and lazy: the answer does not depend on it, and open() removes a
      // tombstone left behind.
      collection.remove({ _id: write.order.uuid }, { durability: 'lazy' }).catch((error: unknown) => {
        this.#deps.log.warn({ err: error, uuid: write.order.uuid }, 'removing a cleared order failed; it is removed at the next start')
      })
    }
    paging.push(...write.effects)
  }

  #apply(effect: PagingEffect): void {
    if (effect.kind === 'page') this.#deps.pager.page(effect.tracker, { tracking: effect.tracking })
    else this.#deps.pager.stop(effect.tracker)
  }
}

function byCreated(a: ActiveOrder, b: ActiveOrder): number {
  return a.created - b.created || a.name - b.name
}
