// Every change to an active order gets the next value of one global, persistent, strictly
// increasing seq. Values are reserved in blocks (one durable write per block), so a crash
// skips the rest of a block but can never reuse a value.
//
// A change can be reserved (seq and time) before the write it describes and recorded after
// it: the writer stores the reservation with its data, so after a crash between the write and
// the record it can record the change again with the same seq (see OrdersService). Which
// changes surely reached every sink is kept as a watermark (announcedThrough), written in the
// background: it may lag after a crash, so re-recording is at-least-once, never lossy.
import type { Clock } from '../kernel/clock.ts'
import { EventBus, type Listener, type Subscribable, type Unsubscribe } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import type { ActiveOrder, ChangeType, OrderChange } from '../orders/types.ts'
import type { Collection, Durability } from '../store/db.ts'

/** The longest the stored watermark lags behind the changes handed to every sink. */
const announceIntervalMs = 50

type SeqDoc = { key: 'seq'; reservedUpTo: number } | { key: 'announced'; through: number }

/** A seq (and the time of the change) taken before the change is written. */
export interface ReservedChange {
  seq: number
  at: number
}

/**
 * A durable consumer (webhook outbox, fleet outbox): awaited inside record(), so a change is
 * acknowledged only once every sink holds it. Sinks are part of recording, given at open().
 */
export type ChangeSink = (change: OrderChange, durability: Durability) => Promise<void>

/** What live consumers (the WebSocket hub) hear: each change after every sink holds it. */
export interface ChangeEvents {
  recorded: OrderChange
}

export interface ChangeLogOptions {
  /** Durable consumers, awaited in this order for every change. */
  sinks?: ChangeSink[]
  /** Where a failing live listener is reported. */
  log?: Logger
  /** Seqs reserved per durable write (tests use small blocks to cross them). */
  blockSize?: number
}

export class ChangeLog implements Subscribable<ChangeEvents> {
  readonly #collection: Collection<SeqDoc>
  readonly #clock: Clock
  readonly #blockSize: number
  #next: number
  #reservedUpTo: number
  readonly #sinks: readonly ChangeSink[]
  readonly #events: EventBus<ChangeEvents>
  #queue: Promise<unknown> = Promise.resolve()
  /** Reservations and records queued and not yet finished. */
  #queued = 0
  #announcedThrough: number
  /** The watermark write in progress (at most one; later values wait for it). */
  #announcing: Promise<void> | undefined
  #announcedStored: number

  private constructor(collection: Collection<SeqDoc>, clock: Clock, options: ChangeLogOptions, reservedUpTo: number, announcedThrough: number) {
    this.#collection = collection
    this.#clock = clock
    this.#blockSize = options.blockSize ?? 1000
    this.#sinks = [...(options.sinks ?? [])]
    this.#events = new EventBus(options.log)
    this.#reservedUpTo = reservedUpTo
    this.#next = reservedUpTo + 1
    this.#announcedThrough = announcedThrough
    this.#announcedStored = announcedThrough
  }

  static async open(collection: Collection<SeqDoc>, clock: Clock, options: ChangeLogOptions = {}): Promise<ChangeLog> {
    const stored = (await collection.findOne({ key: 'seq' })) as { reservedUpTo: number } | null
    const announced = (await collection.findOne({ key: 'announced' })) as { through: number } | null
    return new ChangeLog(collection, clock, options, stored?.reservedUpTo ?? 0, announced?.through ?? 0)
  }

  /**
   * Every change up to this seq was handed to every sink (as far as the last run knew: a
   * crash may leave it behind, never ahead). A writer re-records its reserved changes above it.
   */
  get announcedThrough(): number {
    return this.#announcedThrough
  }

  /** The last seq handed out (0 before any). */
  get lastSeq(): number {
    return this.#next - 1
  }

  on<K extends keyof ChangeEvents>(event: K, listener: Listener<ChangeEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  /** Takes the next seq (durably reserved) and the change's time, to store with the write. */
  reserve(): Promise<ReservedChange> {
    // Nothing queued and the block has room: taken at once, as the idle queue would.
    if (this.#queued === 0 && this.#next <= this.#reservedUpTo) return Promise.resolve({ seq: this.#next++, at: this.#clock.now() })
    return this.#enqueue(() => this.#take())
  }

  /** Runs `task` after every reservation and record queued before it. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.#queued++
    const run = this.#queue.then(async () => {
      try {
        return await task()
      } finally {
        this.#queued--
      }
    })
    this.#queue = run.catch(() => undefined)
    return run
  }

  async #take(): Promise<ReservedChange> {
    if (this.#next > this.#reservedUpTo) {
      const reservedUpTo = this.#reservedUpTo + this.#blockSize
      // Durable before any value of the block is used, whatever batch the caller runs in:
      // a crash must never hand out a seq again.
      await this.#collection.update({ key: 'seq' }, { key: 'seq', reservedUpTo }, { upsert: true, durability: 'now' })
      this.#reservedUpTo = reservedUpTo
    }
    return { seq: this.#next++, at: this.#clock.now() }
  }

  /**
   * Numbers the change (or uses the reservation made for it), hands it to every durable sink,
   * then tells live listeners ('recorded'). Serialised, so sinks see changes in seq order. `durability`: how
   * the sinks' writes are made durable (the recording operation's batch, or 'now').
   */
  record(type: ChangeType, order: ActiveOrder, reserved?: ReservedChange, durability: Durability = 'now'): Promise<OrderChange> {
    return this.#enqueue(async () => {
      const { seq, at } = reserved ?? (await this.#take())
      // A copy (flat: every field of an order is a primitive), so later writes cannot alter it.
      const change: OrderChange = { seq, type, order: { ...order }, at }
      for (const sink of this.#sinks) await sink(change, durability)
      this.#announced(seq)
      // A live listener's failure never undoes or delays a recorded change (the bus contains it).
      this.#events.emit('recorded', change)
      return change
    })
  }

  /** Raises the watermark; written in the background, one write at a time, latest value wins. */
  #announced(seq: number): void {
    if (seq > this.#announcedThrough) this.#announcedThrough = seq
    if (this.#announcing || this.#announcedStored >= this.#announcedThrough) return
    let written = false
    let through = 0
    // Written at most every announceIntervalMs: under load a write per change doubled the
    // cost of each; a lagging watermark only means more is re-recorded after a crash.
    this.#announcing = new Promise((resolve) => setTimeout(resolve, announceIntervalMs))
      .then(() => {
        through = this.#announcedThrough
        // Lazy: a lost watermark only means changes are recorded again after a crash.
        return this.#collection.update({ key: 'announced' }, { key: 'announced', through }, { upsert: true, durability: 'lazy' })
      })
      .then(() => {
        this.#announcedStored = through
        written = true
      })
      // A failed write only means more is re-recorded after a crash; the next change retries.
      .catch(() => undefined)
      .finally(() => {
        this.#announcing = undefined
        if (written) this.#announced(0)
      })
  }

  /** Resolves once the watermark is on disk (clean shutdown, tests). */
  async flush(): Promise<void> {
    while (this.#announcing) await this.#announcing
  }
}
