// The fleet bridge's persisted outbox: one document per order change, holding the MQTT
// messages it produces, written (fsynced) before the change is acknowledged and removed only
// once the broker has acknowledged every message of it. A crash or a broker outage therefore
// loses nothing; what was in flight is published again (recognisable by its seq).
import { isDuplicateKey, type Collection, type Durability } from '../store/db.ts'

export type FleetChannel = 'events' | 'history'

export interface FleetMessage {
  channel: FleetChannel
  /** The JSON text published, rendered once when the change happened. */
  payload: string
}

export interface FleetOutboxEntry {
  seq: number
  messages: FleetMessage[]
}

type CursorDoc = { key: 'published'; seq: number }

export class FleetOutbox {
  readonly #entries: Collection<FleetOutboxEntry>
  readonly #cursor: Collection<CursorDoc>
  #size: number
  #lastPublishedSeq: number | null
  /** When each entry added in this run reaches the disk (entries loaded at start are there). */
  readonly #onDisk = new Map<number, Promise<void>>()

  private constructor(entries: Collection<FleetOutboxEntry>, cursor: Collection<CursorDoc>, size: number, last: number | null) {
    this.#entries = entries
    this.#cursor = cursor
    this.#size = size
    this.#lastPublishedSeq = last
  }

  static async open(entries: Collection<FleetOutboxEntry>, cursor: Collection<CursorDoc>): Promise<FleetOutbox> {
    const size = await entries.count()
    const stored = await cursor.findOne({ key: 'published' })
    return new FleetOutbox(entries, cursor, size, stored?.seq ?? null)
  }

  /** Changes waiting for the broker. */
  get backlog(): number {
    return this.#size
  }

  /** The highest seq the broker has acknowledged (kept across restarts). */
  get lastPublishedSeq(): number | null {
    return this.#lastPublishedSeq
  }

  /**
   * A change recorded again after a crash (the same seq, OrdersService.resume) while its
   * entry still waits for the broker keeps that entry: its messages are the same, byte for
   * byte, and it is on disk already. Refusing it would stop the gateway's start-up.
   */
  async add(entry: FleetOutboxEntry, durability: Durability = 'now'): Promise<void> {
    try {
      await this.#entries.insert({ seq: entry.seq, messages: entry.messages }, { durability })
    } catch (error) {
      if (isDuplicateKey(error)) return
      throw error
    }
    const onDisk = this.#entries.synced()
    onDisk.catch(() => undefined)
    this.#onDisk.set(entry.seq, onDisk)
    this.#size++
  }

  /**
   * The oldest entries, in seq order, once their own appends are on disk: nothing leaves
   * that a crash could undo.
   */
  async head(limit: number): Promise<FleetOutboxEntry[]> {
    const docs: FleetOutboxEntry[] = await this.#entries.find({}, { seq: 1 }, limit)
    await Promise.all(docs.map((doc) => this.#onDisk.get(doc.seq)))
    return docs.map((doc) => ({ seq: doc.seq, messages: doc.messages }))
  }

  /** Drops entries the broker acknowledged; `seqs` are a prefix of head(). */
  async remove(seqs: number[]): Promise<void> {
    if (!seqs.length) return
    for (const seq of seqs) this.#onDisk.delete(seq)
    // Lazy: a removal lost in a crash only republishes messages recognisable by their seq.
    const removed = await this.#entries.remove({ seq: { $in: seqs } }, { multi: true, durability: 'lazy' })
    this.#size = Math.max(0, this.#size - removed)
    const highest = Math.max(...seqs)
    if (this.#lastPublishedSeq === null || highest > this.#lastPublishedSeq) {
      this.#lastPublishedSeq = highest
      await this.#cursor.update({ key: 'published' }, { key: 'published', seq: highest }, { upsert: true })
    }
  }
}
