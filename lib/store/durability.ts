// When a write to a collection resolves: chosen by its caller, at the call (WriteOptions).

/**
 * - `'now'` (the default): once it is on disk (fsynced, with the group commit).
 * - a `SyncBatch`: once appended; its fsync joins the batch, and the batch's owner answers
 *   its caller only after `batch.durable()`. One operation of the orders service is one
 *   batch: it starts the next operation while the group commit makes this one's writes
 *   durable together.
 * - `'lazy'`: once appended; the next group commit makes it durable and nobody waits. For
 *   writes whose loss in a crash only repeats work (an outbox entry's removal after
 *   delivery: it is delivered again, which receivers recognise).
 */
export type Durability = 'now' | 'lazy' | SyncBatch

export interface WriteOptions {
  durability?: Durability
}

/** The fsyncs of one operation's writes, so the operation is answered once all are on disk. */
export class SyncBatch {
  readonly #syncs: Promise<void>[] = []

  /** Collection calls this for each write made with the batch. */
  add(sync: Promise<void>): void {
    // A write finishing after its operation failed is awaited by nobody.
    sync.catch(() => undefined)
    this.#syncs.push(sync)
  }

  /** Resolves once every write made with this batch so far is on disk (rejects: storage trouble). */
  durable(): Promise<void> {
    return Promise.all(this.#syncs).then(() => undefined)
  }
}
