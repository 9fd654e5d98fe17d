// The fleet bridge's persisted outbox: one document per order change, holding the MQTT
// messages it produces, written (fsynced) before the change is acknowledged. Entries above
// the cursor (the highest seq the broker acknowledged) wait for the broker; the ones at or
// below it stay a while as the replay window (the newest `keep` of them), so headquarters can
// ask for messages it missed (lib/fleet/replay.ts) and get them byte for byte. A crash or a
// broker outage therefore loses nothing; what was in flight is published again
// (recognisable by its seq).
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

/** Published entries dropped at once when the window is this much over `keep` (one query per prune, not per entry). */
const pruneSlack = (keep: number) => Math.max(1, Math.ceil(keep / 20))

export class FleetOutbox {
  readonly #entries: Collection<FleetOutboxEntry>
  readonly #cursor: Collection<CursorDoc>
  readonly #keep: number
  #size: number
  #lastPublishedSeq: number | null
  /** Published entries held for replay. */
  #held: number
  /** Every published entry with a seq above this is held (what was at or below it is gone). */
  #replayAfter: number
  /** The highest seq rendered into the outbox: the next entry's prevSeq. */
  #lastRendered: number | null
  /** When each entry added in this run reaches the disk (entries loaded at start are there). */
  readonly #onDisk = new Map<number, Promise<void>>()

  private constructor(
    entries: Collection<FleetOutboxEntry>,
    cursor: Collection<CursorDoc>,
    keep: number,
    state: { size: number; last: number | null; held: number; replayAfter: number; lastRendered: number | null },
  ) {
    this.#entries = entries
    this.#cursor = cursor
    this.#keep = keep
    this.#size = state.size
    this.#lastPublishedSeq = state.last
    this.#held = state.held
    this.#replayAfter = state.replayAfter
    this.#lastRendered = state.lastRendered
  }

  /** `keep`: published entries held for replay (0: none, an entry leaves once acknowledged). */
  static async open(entries: Collection<FleetOutboxEntry>, cursor: Collection<CursorDoc>, keep = 0): Promise<FleetOutbox> {
    const stored = await cursor.findOne({ key: 'published' })
    const last = stored?.seq ?? null
    const published = last === null ? { seq: { $lt: 0 } } : { seq: { $lte: last } }
    const size = await entries.count(last === null ? {} : { seq: { $gt: last } })
    const held = await entries.count(published)
    const [oldestHeld] = await entries.find(published, { seq: 1 }, 1)
    const [newest] = await entries.find({}, { seq: -1 }, 1)
    // Before the first held entry nothing published is left (an outbox of an older version,
    // or emptied by a restore): only what is above it, or above the cursor, can be replayed.
    const replayAfter = oldestHeld ? oldestHeld.seq - 1 : (last ?? 0)
    const lastRendered = Math.max(newest?.seq ?? 0, last ?? 0) || null
    const outbox = new FleetOutbox(entries, cursor, keep, { size, last, held, replayAfter, lastRendered })
    await outbox.#prune()
    return outbox
  }

  /** Changes waiting for the broker. */
  get backlog(): number {
    return this.#size
  }

  /** The highest seq the broker has acknowledged (kept across restarts). */
  get lastPublishedSeq(): number | null {
    return this.#lastPublishedSeq
  }

  /** Every published change with a seq above this can be replayed (the status says it). */
  get replayAfter(): number {
    return this.#replayAfter
  }

  /** The seq of the last change rendered into the outbox (null before the first): the next one's prevSeq. */
  get lastRendered(): number | null {
    return this.#lastRendered
  }

  /**
   * A change recorded again after a crash (the same seq, OrdersService.resume) while its
   * entry is still held keeps that entry: its messages are the same, byte for byte, and it
   * is on disk already. Refusing it would stop the gateway's start-up. One at or below the
   * cursor that is not held was acknowledged by the broker before (and has left the window):
   * it is not published again. Returns whether the entry was added.
   */
  async add(entry: FleetOutboxEntry, durability: Durability = 'now'): Promise<boolean> {
    if (this.#lastPublishedSeq !== null && entry.seq <= this.#lastPublishedSeq) return false
    try {
      await this.#entries.insert({ seq: entry.seq, messages: entry.messages }, { durability })
    } catch (error) {
      if (isDuplicateKey(error)) return false
      throw error
    }
    const onDisk = this.#entries.synced()
    onDisk.catch(() => undefined)
    this.#onDisk.set(entry.seq, onDisk)
    this.#size++
    if (this.#lastRendered === null || entry.seq > this.#lastRendered) this.#lastRendered = entry.seq
    return true
  }

  /**
   * The oldest entries waiting for the broker, in seq order, once their own appends are on
   * disk: nothing leaves that a crash could undo.
   */
  async head(limit: number): Promise<FleetOutboxEntry[]> {
    const waiting = this.#lastPublishedSeq === null ? {} : { seq: { $gt: this.#lastPublishedSeq } }
    const docs: FleetOutboxEntry[] = await this.#entries.find(waiting, { seq: 1 }, limit)
    await Promise.all(docs.map((doc) => this.#onDisk.get(doc.seq)))
    return docs.map((doc) => ({ seq: doc.seq, messages: doc.messages }))
  }

  /** The broker acknowledged these entries (a prefix of head()): they join the replay window. */
  async acknowledged(seqs: number[]): Promise<void> {
    if (!seqs.length) return
    for (const seq of seqs) this.#onDisk.delete(seq)
    const highest = Math.max(...seqs)
    if (this.#lastPublishedSeq === null || highest > this.#lastPublishedSeq) {
      this.#lastPublishedSeq = highest
      await this.#cursor.update({ key: 'published' }, { key: 'published', seq: highest }, { upsert: true })
    }
    this.#size = Math.max(0, this.#size - seqs.length)
    this.#held += seqs.length
    await this.#prune()
  }

  /** Held published entries with from <= seq <= to, oldest first, at most `limit`. */
  async published(from: number, to: number, limit: number): Promise<FleetOutboxEntry[]> {
    const upTo = Math.min(to, this.#lastPublishedSeq ?? 0)
    const lowest = Math.max(from, this.#replayAfter + 1)
    if (limit <= 0 || lowest > upTo) return []
    const docs: FleetOutboxEntry[] = await this.#entries.find({ seq: { $gte: lowest, $lte: upTo } }, { seq: 1 }, limit)
    return docs.map((doc) => ({ seq: doc.seq, messages: doc.messages }))
  }

  /** Drops the oldest published entries beyond `keep`. */
  async #prune(): Promise<void> {
    const excess = this.#held - this.#keep
    if (excess <= 0 || (this.#keep > 0 && excess < pruneSlack(this.#keep))) return
    const oldest = await this.#entries.find({ seq: { $lte: this.#lastPublishedSeq ?? 0 } }, { seq: 1 }, excess)
    if (!oldest.length) return
    const through = oldest.at(-1)!.seq
    // Lazy: an entry whose removal a crash undoes only stays replayable a little longer.
    const removed = await this.#entries.remove({ seq: { $lte: through } }, { multi: true, durability: 'lazy' })
    this.#held = Math.max(0, this.#held - removed)
    if (through > this.#replayAfter) this.#replayAfter = through
  }
}
