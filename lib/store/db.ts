// Live state in NeDB (nedb-promises): one datafile per collection under the data dir.
// Acknowledged writes are fsynced before they resolve, batched (group commit) so a burst
// of writes shares one fsync per file. A torn last line after a power cut is dropped on
// load (NeDB rewrites the file compacted), never fatal.
import { mkdirSync, promises as fs } from 'node:fs'
import path from 'node:path'
import Datastore from 'nedb-promises'
import { DomainError } from '../errors.ts'
import type { Logger } from '../log.ts'

export type Query = Record<string, unknown>

/** Errors from the file system that mean "storage cannot take writes right now". */
const unavailableCodes = new Set(['ENOSPC', 'EROFS', 'EIO', 'EDQUOT', 'EACCES', 'EPERM'])

export function storageError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code && unavailableCodes.has(code)) return new DomainError('STORAGE_UNAVAILABLE', undefined, { cause: error })
  return error
}

/** Batches fdatasync calls per file: every caller waiting in one window shares one sync. */
class GroupCommit {
  #pending = new Map<string, Promise<void>>()
  readonly intervalMs: number

  constructor(intervalMs: number) {
    this.intervalMs = intervalMs
  }

  sync(file: string): Promise<void> {
    const waiting = this.#pending.get(file)
    if (waiting) return waiting
    const promise = new Promise<void>((resolve) => setTimeout(resolve, this.intervalMs))
      .then(async () => {
        this.#pending.delete(file)
        const handle = await fs.open(file, 'r+')
        try {
          await handle.datasync()
        } finally {
          await handle.close()
        }
      })
    this.#pending.set(file, promise)
    return promise
  }
}

export class Collection<T extends object> {
  readonly name: string
  readonly datastore: Datastore<T>
  readonly #file: string | undefined
  readonly #commit: GroupCommit | undefined
  #needsRepair = false

  constructor(name: string, datastore: Datastore<T>, file: string | undefined, commit: GroupCommit | undefined) {
    this.name = name
    this.datastore = datastore
    this.#file = file
    this.#commit = commit
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

  async insert(doc: T): Promise<T & { _id: string }> {
    return this.#durable(() => this.datastore.insert(doc) as Promise<T & { _id: string }>)
  }

  async update(query: Query, update: Query, options: { multi?: boolean; upsert?: boolean } = {}): Promise<number> {
    return this.#durable(async () => {
      const result = (await this.datastore.update(query, update, options)) as unknown
      return typeof result === 'number' ? result : 1
    })
  }

  async remove(query: Query, options: { multi?: boolean } = {}): Promise<number> {
    return this.#durable(() => this.datastore.remove(query, options) as Promise<number>)
  }

  async #durable<R>(write: () => Promise<R>): Promise<R> {
    try {
      // After a failed write the datafile may end in a torn fragment that the next append
      // would glue onto; rewriting it first (NeDB's load compacts) keeps later lines whole.
      if (this.#needsRepair) {
        await this.#reload()
        this.#needsRepair = false
      }
      const result = await write()
      if (this.#file && this.#commit) await this.#commit.sync(this.#file)
      return result
    } catch (error) {
      const mapped = storageError(error)
      if (mapped !== error && this.#file) await this.#dropPhantomState()
      throw mapped
    }
  }

  /** Re-reads the datafile (nedb-promises memoises load(), so go to the datastore beneath). */
  #reload(): Promise<void> {
    const original = (this.datastore as unknown as { __original: { loadDatabaseAsync(): Promise<void> } }).__original
    return original.loadDatabaseAsync()
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

export interface StoreOptions {
  /** Directory for datafiles; undefined keeps everything in memory (tests). */
  dataDir?: string
  syncIntervalMs?: number
  log?: Logger
}

export class Store {
  readonly dataDir: string | undefined
  readonly #commit: GroupCommit | undefined
  readonly #collections = new Map<string, Collection<object>>()
  readonly #log: Logger | undefined

  constructor(options: StoreOptions = {}) {
    this.dataDir = options.dataDir
    this.#log = options.log
    if (this.dataDir) {
      mkdirSync(this.dataDir, { recursive: true })
      this.#commit = new GroupCommit(options.syncIntervalMs ?? 5)
    }
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
    await datastore.load()
    for (const index of indexes) await datastore.ensureIndex(index)
    const collection = new Collection<T>(name, datastore, file, this.#commit)
    this.#collections.set(name, collection as unknown as Collection<object>)
    this.#log?.debug({ collection: name }, 'collection opened')
    return collection
  }

  /** Compacts every datafile so the next start loads quickly. */
  async close(): Promise<void> {
    if (!this.dataDir) return
    for (const collection of this.#collections.values()) {
      await (collection.datastore as unknown as { compactDatafileAsync(): Promise<void> }).compactDatafileAsync()
    }
  }
}
