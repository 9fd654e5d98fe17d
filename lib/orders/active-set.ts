// The active orders as the orders service holds them: in the order they joined (the list
// the API answers), with lookups by uuid, by number and by tracker. Every change to an
// order looked one of those up, and searching the list for each cost more than the rest of
// the state machine's work once a restaurant had a few hundred orders out (the write path's
// profile). A Map keeps its keys in insertion order and a replaced value in its place, so
// the uuid map is the list itself.
//
// The state machine keeps a number and a tracker on one active order at most (its property
// test checks this after every step), so each key names one order.
import type { ActiveOrders, OrderWrite } from './machine.ts'
import type { ActiveOrder } from './types.ts'

export class ActiveSet implements ActiveOrders {
  readonly #byUuid = new Map<string, ActiveOrder>()
  readonly #byName = new Map<number, ActiveOrder>()
  readonly #byTracker = new Map<string, ActiveOrder>()

  constructor(orders: Iterable<ActiveOrder> = []) {
    for (const order of orders) this.#put(order)
  }

  get size(): number {
    return this.#byUuid.size
  }

  [Symbol.iterator](): IterableIterator<ActiveOrder> {
    return this.#byUuid.values()
  }

  byUuid(uuid: string): ActiveOrder | undefined {
    return this.#byUuid.get(uuid)
  }

  byName(name: number): ActiveOrder | undefined {
    return this.#byName.get(name)
  }

  byTracker(tracker: string): ActiveOrder | undefined {
    return this.#byTracker.get(tracker)
  }

  /**
   * Brings the set up to date with one write, in place: a cleared order leaves it, any other
   * version replaces its predecessor (keeping its place) or joins the end.
   */
  apply(write: OrderWrite): void {
    const previous = this.#byUuid.get(write.order.uuid)
    if (previous) this.#forget(previous)
    if (write.type === 'ORDER_CLEARED') this.#byUuid.delete(write.order.uuid)
    else this.#put(write.order)
  }

  #put(order: ActiveOrder): void {
    this.#byUuid.set(order.uuid, order)
    this.#byName.set(order.name, order)
    if (order.tracker !== null) this.#byTracker.set(order.tracker, order)
  }

  /** Drops the keys of an order's version; a key another order took since is left to it. */
  #forget(order: ActiveOrder): void {
    if (this.#byName.get(order.name)?.uuid === order.uuid) this.#byName.delete(order.name)
    if (order.tracker !== null && this.#byTracker.get(order.tracker)?.uuid === order.uuid) this.#byTracker.delete(order.tracker)
  }
}
