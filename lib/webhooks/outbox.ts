// The persisted webhook outbox: one entry per (registered URL, order change), written by a
// ChangeLog sink in the same step as the change, removed once the receiver acknowledged it.
// Mirrored in memory as one seq-ordered queue per URL, so finding the next entry is O(1)
// however long a receiver has been down.
import { DomainError } from '../kernel/errors.ts'
import type { Collection, Durability } from '../store/db.ts'

/** Longest backlog kept per URL; older entries are dropped (and counted) beyond it. */
export const maxBacklog = 10_000

export interface OutboxEntry {
  url: string
  seq: number
  /** webhook-id: the same on every attempt, so receivers can drop duplicates. */
  id: string
  body: string
  attempts: number
  nextAttemptAt: number
  created: number
}

type Stored = OutboxEntry & { _id: string }

/** Start-up housekeeping that may wait for free space: only storage trouble is tolerated. */
function unlessStorageUnavailable(error: unknown): void {
  if (!(error instanceof DomainError && error.kind === 'STORAGE_UNAVAILABLE')) throw error
}

export class Outbox {
  readonly #collection: Collection<OutboxEntry>
  readonly #queues = new Map<string, Stored[]>()
  /** When each entry appended in this run reaches the disk (entries loaded at start are there). */
  readonly #onDisk = new WeakMap<Stored, Promise<void>>()

  private constructor(collection: Collection<OutboxEntry>) {
    this.#collection = collection
  }

  static async open(collection: Collection<OutboxEntry>, registeredUrls: Set<string>): Promise<Outbox> {
    const outbox = new Outbox(collection)
    // Entries of a URL removed while its change was being written are orphans: drop them
    // (on a full disk they stay in the file until a later start; they are never queued).
    await collection.remove({ url: { $nin: [...registeredUrls] } }, { multi: true }).catch(unlessStorageUnavailable)
    for (const entry of await collection.find({ url: { $in: [...registeredUrls] } }, { seq: 1 })) outbox.#queue(entry.url).push(entry)
    return outbox
  }

  #queue(url: string): Stored[] {
    let queue = this.#queues.get(url)
    if (!queue) this.#queues.set(url, (queue = []))
    return queue
  }

  /** Appends an entry; returns how many old entries were dropped to stay within maxBacklog. */
  async append(entry: OutboxEntry, durability: Durability = 'now'): Promise<number> {
    // Changes arrive in seq order, so one at or below the newest queued is already here: a
    // change recorded again after a crash (OrdersService.resume) is not queued twice.
    const newest = this.#queues.get(entry.url)?.at(-1)
    if (newest && entry.seq <= newest.seq) return 0
    const stored = (await this.#collection.insert(entry, { durability })) as Stored
    const onDisk = this.#collection.synced()
    onDisk.catch(() => undefined)
    this.#onDisk.set(stored, onDisk)
    const queue = this.#queue(entry.url)
    queue.push(stored)
    let dropped = 0
    while (queue.length > maxBacklog) {
      const oldest = queue.shift()!
      await this.#collection.remove({ _id: oldest._id }, { durability })
      dropped++
    }
    return dropped
  }

  /**
   * Resolves once the URL's next entry is on disk (deliver nothing before). Only that
   * entry's own append is waited for, not writes made since (acknowledgements), so a
   * backlog drains at the receiver's pace.
   */
  async headOnDisk(url: string): Promise<void> {
    const head = this.#queues.get(url)?.[0]
    if (head) await this.#onDisk.get(head)
  }

  head(url: string): OutboxEntry | undefined {
    const head = this.#queues.get(url)?.[0]
    return head && { ...head }
  }

  backlog(url: string): number {
    return this.#queues.get(url)?.length ?? 0
  }

  /** Removes the delivered entry (the head of its URL's queue). */
  async acknowledge(entry: OutboxEntry): Promise<void> {
    const queue = this.#queues.get(entry.url)
    const index = queue?.findIndex((e) => e.seq === entry.seq) ?? -1
    if (!queue || index < 0) return
    const [stored] = queue.splice(index, 1)
    // Lazy: a removal lost in a crash only means one more delivery of the same webhook-id.
    await this.#collection.remove({ _id: stored!._id }, { durability: 'lazy' })
  }

  async reschedule(entry: OutboxEntry, attempts: number, nextAttemptAt: number): Promise<void> {
    const stored = this.#queues.get(entry.url)?.find((e) => e.seq === entry.seq)
    if (!stored) return
    await this.#collection.update({ _id: stored._id }, { $set: { attempts, nextAttemptAt } }, { durability: 'lazy' })
    stored.attempts = attempts
    stored.nextAttemptAt = nextAttemptAt
  }

  async clear(url: string): Promise<void> {
    this.#queues.delete(url)
    await this.#collection.remove({ url }, { multi: true })
  }
}
