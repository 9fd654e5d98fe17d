// Every change to an active order gets the next value of one global, persistent, strictly
// increasing seq. Values are reserved in blocks (one durable write per block), so a crash
// skips the rest of a block but can never reuse a value.
import type { Clock } from '../clock.ts'
import type { ActiveOrder, ChangeType, OrderChange } from '../orders/types.ts'
import type { Collection } from '../store/db.ts'

type SeqDoc = { key: 'seq'; reservedUpTo: number }

/**
 * A durable consumer (webhook outbox, fleet outbox): awaited inside record(), so a change is
 * acknowledged only once every sink holds it.
 */
export type ChangeSink = (change: OrderChange) => Promise<void>
/** A live consumer (WebSocket hub): told after the sinks, never awaited. */
export type ChangeListener = (change: OrderChange) => void

export class ChangeLog {
  readonly #collection: Collection<SeqDoc>
  readonly #clock: Clock
  readonly #blockSize: number
  #next: number
  #reservedUpTo: number
  #sinks: ChangeSink[] = []
  #listeners = new Set<ChangeListener>()
  #queue: Promise<unknown> = Promise.resolve()

  private constructor(collection: Collection<SeqDoc>, clock: Clock, reservedUpTo: number, blockSize: number) {
    this.#collection = collection
    this.#clock = clock
    this.#blockSize = blockSize
    this.#reservedUpTo = reservedUpTo
    this.#next = reservedUpTo + 1
  }

  static async open(collection: Collection<SeqDoc>, clock: Clock, blockSize = 1000): Promise<ChangeLog> {
    const stored = await collection.findOne({ key: 'seq' })
    return new ChangeLog(collection, clock, stored?.reservedUpTo ?? 0, blockSize)
  }

  /** The last seq handed out (0 before any). */
  get lastSeq(): number {
    return this.#next - 1
  }

  addSink(sink: ChangeSink): void {
    this.#sinks.push(sink)
  }

  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * Numbers the change, hands it to every durable sink, then to live listeners. Serialised,
   * so sinks see changes in seq order.
   */
  record(type: ChangeType, order: ActiveOrder): Promise<OrderChange> {
    const run = this.#queue.then(async () => {
      if (this.#next > this.#reservedUpTo) {
        const reservedUpTo = this.#reservedUpTo + this.#blockSize
        await this.#collection.update({ key: 'seq' }, { key: 'seq', reservedUpTo }, { upsert: true })
        this.#reservedUpTo = reservedUpTo
      }
      const change: OrderChange = { seq: this.#next++, type, order: structuredClone(order), at: this.#clock.now() }
      for (const sink of this.#sinks) await sink(change)
      for (const listener of this.#listeners) {
        try {
          listener(change)
        } catch {
          // A live listener's failure never undoes or delays a recorded change.
        }
      }
      return change
    })
    this.#queue = run.catch(() => undefined)
    return run
  }
}
