// Live state: named collections (collection.ts), each queried through NeDB in memory and
// kept in its own datafile under the data dir (`<name>.db`, NeDB's line format), which
// lib/store reads, appends to and rewrites itself. Acknowledged writes are fsynced before
// they resolve, batched (group commit) so a burst of writes shares one fsync per file.
import path from 'node:path'
import type { Logger } from '../kernel/log.ts'
import { Collection, type IndexSpec, type KeyedBy } from './collection.ts'
import { Datafile } from './datafile.ts'
import { StorageHealth, storageError } from './health.ts'
import { privateDataDir } from './private-files.ts'

export { Collection, defaultCompactAfterLines, isDuplicateKey, type KeyedBy, type Query, type Stored } from './collection.ts'
export { SyncBatch, type Durability, type WriteOptions } from './durability.ts'
export { storageError } from './health.ts'
export { serializeLine } from './datafile.ts'

export interface StoreOptions {
  /** Directory for datafiles; undefined keeps everything in memory (tests). */
  dataDir?: string
  syncIntervalMs?: number
  /** See defaultCompactAfterLines. */
  compactAfterLines?: number
  log?: Logger
}

export class Store {
  readonly dataDir: string | undefined
  readonly #syncIntervalMs: number
  readonly #compactAfterLines: number | undefined
  /** Opening or open: a collection asked for twice at once is still opened (and its file read) once. */
  readonly #collections = new Map<string, Promise<Collection<object>>>()
  readonly #log: Logger | undefined
  /** Whether the data dir takes writes (warned about once per episode). */
  readonly health: StorageHealth

  constructor(options: StoreOptions = {}) {
    this.dataDir = options.dataDir
    this.#log = options.log
    this.health = new StorageHealth(options.dataDir, options.log)
    this.#syncIntervalMs = options.syncIntervalMs ?? 0
    this.#compactAfterLines = options.compactAfterLines
    const foreign = this.dataDir ? privateDataDir(this.dataDir) : []
    if (foreign.length) {
      options.log?.warn(
        { count: foreign.length, files: foreign.slice(0, 10) },
        "files in the data dir that another user owns keep their mode (the data dir is 0700: no other user reaches them); chown them to the gateway's user",
      )
    }
  }

  /**
   * Opens (once) and loads a collection; its indexes live in memory only, declared here, and
   * so does its key (`{ key: 'uuid' }`: each document is stored under its uuid, see KeyedBy).
   */
  collection<T extends object>(name: string, indexes: IndexSpec[] = [], options: { key?: KeyedBy } = {}): Promise<Collection<T>> {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) return Promise.reject(new Error(`bad collection name ${name}`))
    let opening = this.#collections.get(name)
    if (!opening) {
      opening = this.#open(name, indexes, options.key)
      this.#collections.set(name, opening)
      // A failed open (a unique index the file breaks) may be tried again.
      const failed = opening
      failed.catch(() => this.#collections.get(name) === failed && this.#collections.delete(name))
    }
    return opening as unknown as Promise<Collection<T>>
  }

  async #open(name: string, indexes: IndexSpec[], key: KeyedBy | undefined): Promise<Collection<object>> {
    const datafile = this.dataDir ? new Datafile(path.join(this.dataDir, `${name}.db`), this.#syncIntervalMs) : undefined
    const collection = await Collection.open<object>(name, indexes, {
      datafile,
      key,
      compactAfterLines: this.#compactAfterLines,
      log: this.#log,
      health: this.health,
    })
    this.#log?.debug({ collection: name }, 'collection opened')
    return collection
  }

  /**
   * Every open collection's documents (Collection.snapshot), each queued at the same moment,
   * so no write is half in any of them. Callers that need several collections consistent
   * with each other also hold their writers (OrdersService.exclusive).
   */
  async snapshot(): Promise<Map<string, object[]>> {
    const collections: Collection<object>[] = []
    for (const opening of this.#collections.values()) {
      const collection = await opening.catch(() => undefined)
      if (collection) collections.push(collection)
    }
    const taken = collections.map((collection) => collection.snapshot())
    const result = new Map<string, object[]>()
    for (const [index, docs] of (await Promise.all(taken)).entries()) result.set(collections[index]!.name, docs)
    return result
  }

  /** Compacts every datafile so the next start loads quickly. */
  async close(): Promise<void> {
    if (!this.dataDir) return
    for (const opening of this.#collections.values()) {
      const collection = await opening.catch(() => undefined)
      if (!collection) continue
      try {
        await collection.compact()
      } catch (error) {
        // Full disk: the file stays as it is (every acknowledged line is in it already).
        if (storageError(error) === error) throw error
        this.health.failed(error, `${collection.name}: compaction at stop`)
      }
    }
  }
}
