// Live state in NeDB (nedb-promises): one datafile per collection under the data dir.
// Acknowledged writes are fsynced before they resolve, batched (group commit) so a burst
// of writes shares one fsync per file; the appends and fsyncs themselves are datafile.ts's.
// A torn last line after a power cut is dropped on load (NeDB rewrites the file
// compacted), never fatal.
import path from 'node:path'
import Datastore from 'nedb-promises'
import { DomainError } from '../kernel/errors.ts'
import type { Logger } from '../kernel/log.ts'
import { Datafile } from './datafile.ts'
import { StorageHealth } from './health.ts'
import { privateDataDir } from './private-files.ts'

export type Query = Record<string, unknown>

/** Errors from the file system that mean "storage cannot take writes right now". */
const unavailableCodes = new Set(['ENOSPC', 'EROFS', 'EIO', 'EDQUOT', 'EACCES', 'EPERM'])

export function storageError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code && unavailableCodes.has(code)) return new DomainError('STORAGE_UNAVAILABLE', undefined, { cause: error })
  return error
}

/**
 * When a write resolves, chosen by its caller and written at the call:
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

/**
 * A datafile gains a line with every write and is rewritten from memory only at load,
 * close and compaction. Left to grow, a gateway that runs for months would carry gigabytes
 * of old versions and take minutes to start; so once this many lines, and several times the
 * live documents, were appended since the last rewrite, the collection is compacted in the
 * background (a rewrite of the live documents, costing about what they weigh).
 */
export const defaultCompactAfterLines = 2000
const compactAtLiveMultiple = 4

export interface CollectionOptions {
  compactAfterLines?: number
  log?: Logger
  health?: StorageHealth
  /** Rewrite the datafile before the next write (its load could not). */
  needsRepair?: boolean
}

export class Collection<T extends object> {
  readonly name: string
  readonly datastore: Datastore<T>
  /** Undefined for an in-memory collection. */
  readonly #datafile: Datafile | undefined
  #needsRepair = false
  readonly #compactAfterLines: number
  #compacting = false
  /** Appended lines that start the next compaction (pushed on after one fails). */
  #compactAt: number
  readonly #log: Logger | undefined
  readonly #health: StorageHealth | undefined

  constructor(name: string, datastore: Datastore<T>, datafile: Datafile | undefined, options: CollectionOptions = {}) {
    this.name = name
    this.datastore = datastore
    this.#datafile = datafile
    this.#compactAfterLines = options.compactAfterLines ?? defaultCompactAfterLines
    this.#compactAt = this.#compactAfterLines
    this.#log = options.log
    this.#health = options.health
    // Loaded without its rewrite (full disk at start): the file may end in a torn line.
    this.#needsRepair = options.needsRepair ?? false
  }

  find(query: Query = {}, sort?: Record<string, 1 | -1>): Promise<(T & { _id: string })[]> {
    const cursor = this.datastore.find(query)
    return (sort ? cursor.sort(sort) : cursor) as Promise<(T & { _id: string })[]>
  }

  findOne(query: Query): Promise<(T & { _id: string }) | null> {
    return this.datastore.findOne(query) as Promise<(T & { _id: string }) | null>
  }

  count(query: Query = {}): Promise<number> {
    return this.datastore.count(query) as unknown as Promise<number>
  }

  async insert(doc: T, options: WriteOptions = {}): Promise<T & { _id: string }> {
    return this.#durable(() => this.datastore.insert(doc) as Promise<T & { _id: string }>, options)
  }

  async update(query: Query, update: Query, options: { multi?: boolean; upsert?: boolean } & WriteOptions = {}): Promise<number> {
    const { durability, ...nedbOptions } = options
    return this.#durable(async () => {
      const result = (await this.datastore.update(query, update, nedbOptions)) as unknown
      return typeof result === 'number' ? result : 1
    }, { durability })
  }

  async remove(query: Query, options: { multi?: boolean } & WriteOptions = {}): Promise<number> {
    const { durability, ...nedbOptions } = options
    return this.#durable(() => this.datastore.remove(query, nedbOptions) as Promise<number>, { durability })
  }

  /**
   * Resolves once every write so far is on disk. Readers that pass data on beyond the
   * gateway (webhook and fleet outboxes) wait for it, so nothing leaves that a crash could
   * still take back.
   */
  async synced(): Promise<void> {
    try {
      await this.#datafile?.sync()
    } catch (error) {
      throw this.#storageFailure(error, 'sync')
    }
  }

  /** The error to throw for a failed write; storage trouble is told to the health monitor. */
  #storageFailure(error: unknown, during: string): unknown {
    const mapped = storageError(error)
    if (mapped !== error) this.#health?.failed(error, `${this.name}: ${during}`)
    return mapped
  }

  async #durable<R>(write: () => Promise<R>, options: WriteOptions): Promise<R> {
    try {
      // After a failed write the datafile may end in a torn fragment that the next append
      // would glue onto; rewriting it first (NeDB's load compacts) keeps later lines whole.
      if (this.#needsRepair) {
        await this.#reload()
        this.#needsRepair = false
      }
      const result = await write()
      if (this.#datafile) {
        const durability = options.durability ?? 'now'
        if (durability === 'now') await this.#datafile.sync()
        else if (durability === 'lazy') this.synced().catch(() => undefined)
        else durability.add(this.synced())
        this.#compactIfGrown()
        this.#health?.succeeded()
      }
      return result
    } catch (error) {
      const mapped = this.#storageFailure(error, 'write')
      if (mapped !== error && this.#datafile) await this.#dropPhantomState()
      throw mapped
    }
  }

  /**
   * Starts a compaction when the file has grown enough (see defaultCompactAfterLines). NeDB
   * queues it behind the writes before it and holds the writes after it; it writes a new
   * file, fsyncs it and renames it into place, so a crash leaves the old file or the new
   * one. One that fails (a full disk) leaves the old file as it was and is tried again after
   * as many lines more.
   */
  #compactIfGrown(): void {
    const appended = this.#datafile?.appendedSinceRewrite ?? 0
    if (this.#compacting || appended < this.#compactAt) return
    const nedb = nedbOf(this.datastore)
    const worthIt = compactAtLiveMultiple * nedb.getAllData().length
    if (appended < worthIt) {
      // Many live documents: look again once there are enough lines for them.
      this.#compactAt = worthIt
      return
    }
    this.#compacting = true
    nedb
      .compactDatafileAsync()
      .then(
        () => {
          this.#compactAt = this.#compactAfterLines
          this.#log?.debug({ collection: this.name, lines: appended }, 'datafile compacted')
        },
        (error: unknown) => {
          this.#storageFailure(error, 'compaction')
          this.#compactAt = appended + this.#compactAfterLines
          this.#log?.warn({ collection: this.name, err: error }, 'datafile not compacted (tried again later)')
        },
      )
      .finally(() => (this.#compacting = false))
  }

  /** Re-reads the datafile (nedb-promises memoises load(), so go to the datastore beneath). */
  #reload(): Promise<void> {
    return nedbOf(this.datastore).loadDatabaseAsync()
  }

  /**
   * NeDB changes its in-memory copy before appending to the file; when the append fails the
   * memory would show a write that was never acknowledged. Reloading from disk drops it.
   */
  async #dropPhantomState(): Promise<void> {
    this.#needsRepair = true
    try {
      await this.#reload()
      this.#needsRepair = false
    } catch {
      // Memory already matches the file (load resets it before rewriting); the rewrite is
      // retried before the next write.
    }
  }
}

/** The NeDB datastore beneath nedb-promises' wrapper. */
interface NedbDatastore {
  loadDatabaseAsync(): Promise<void>
  compactDatafileAsync(): Promise<void>
  getAllData(): object[]
  persistence: {
    persistNewStateAsync(docs: object[]): Promise<void>
    persistCachedDatabaseAsync(): Promise<void>
  }
}

function nedbOf(datastore: Datastore<object>): NedbDatastore {
  return (datastore as unknown as { __original: NedbDatastore }).__original
}

/**
 * Routes the datastore's appends through `datafile` (see datafile.ts) and tells it when NeDB
 * rewrites the file (load, compaction), which NeDB does by renaming a new file into place.
 */
function writeThrough(datastore: Datastore<object>, datafile: Datafile): { loaded(): void; loadRewriteFailure: () => unknown } {
  const { persistence } = nedbOf(datastore)
  const rewrite = persistence.persistCachedDatabaseAsync.bind(persistence)
  let loading = true
  let loadRewriteFailure: unknown
  persistence.persistNewStateAsync = async (docs) => datafile.append(docs)
  persistence.persistCachedDatabaseAsync = async () => {
    await datafile.release()
    try {
      await rewrite()
    } catch (error) {
      // The load's own rewrite (a compaction) on a full disk: the file is left as it was and
      // memory holds its documents, so reads can be served; NeDB would otherwise stay
      // unloaded and the gateway could not start until space is freed.
      if (!loading || storageError(error) === error) throw error
      loadRewriteFailure = error
      return
    }
    datafile.rewritten()
  }
  return { loaded: () => void (loading = false), loadRewriteFailure: () => loadRewriteFailure }
}

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
  readonly #collections = new Map<string, Collection<object>>()
  readonly #log: Logger | undefined
  /** Whether the data dir takes writes (warned about once per episode). */
  readonly health: StorageHealth

  constructor(options: StoreOptions = {}) {
    this.dataDir = options.dataDir
    this.#log = options.log
    this.health = new StorageHealth(options.dataDir, options.log)
    this.#syncIntervalMs = options.syncIntervalMs ?? 5
    this.#compactAfterLines = options.compactAfterLines
    if (this.dataDir) privateDataDir(this.dataDir)
  }

  /** Opens (once) and loads a collection. */
  async collection<T extends object>(name: string, indexes: { fieldName: string; unique?: boolean }[] = []): Promise<Collection<T>> {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`bad collection name ${name}`)
    const existing = this.#collections.get(name)
    if (existing) return existing as unknown as Collection<T>
    const file = this.dataDir ? path.join(this.dataDir, `${name}.db`) : undefined
    const datastore = Datastore.create({
      filename: file,
      inMemoryOnly: !file,
      timestampData: false,
      // Any number of torn lines is tolerated: they can only come from an interrupted append.
      corruptAlertThreshold: 1,
    } as Parameters<typeof Datastore.create>[0]) as unknown as Datastore<T>
    const datafile = file ? new Datafile(file, this.#syncIntervalMs) : undefined
    const load = datafile && writeThrough(datastore, datafile)
    await datastore.load()
    load?.loaded()
    const loadFailure = load?.loadRewriteFailure()
    if (loadFailure !== undefined) this.health.failed(loadFailure, `${name}: load`)
    // NeDB writes nothing for an index it builds in memory.
    for (const index of indexes) await datastore.ensureIndex(index)
    const collection = new Collection<T>(name, datastore, datafile, {
      compactAfterLines: this.#compactAfterLines,
      log: this.#log,
      health: this.health,
      needsRepair: loadFailure !== undefined,
    })
    this.#collections.set(name, collection as unknown as Collection<object>)
    this.#log?.debug({ collection: name }, 'collection opened')
    return collection
  }

  /** Compacts every datafile so the next start loads quickly. */
  async close(): Promise<void> {
    if (!this.dataDir) return
    for (const collection of this.#collections.values()) {
      try {
        await nedbOf(collection.datastore).compactDatafileAsync()
      } catch (error) {
        // Full disk: the file stays as it is (every acknowledged line is in it already).
        if (storageError(error) === error) throw error
        this.health.failed(error, `${collection.name}: compaction at stop`)
      }
    }
  }
}
