// One collection of live state. NeDB (through nedb-promises) is its query engine and
// indexes, in memory only: it never touches a file. The collection keeps its datafile itself
// (datafile.ts): every write changes memory through NeDB, then appends the changed documents'
// lines, one write at a time, so the file replays to what memory holds; each write says when
// it resolves (durability.ts). The file is read at open (datafile-load.ts) and rewritten from
// memory, crash-safely, at open, when it has grown (compaction) and at close.
import Datastore from 'nedb-promises'
import type { Logger } from '../kernel/log.ts'
import { readDatafile } from './datafile-load.ts'
import type { Datafile } from './datafile.ts'
import type { Durability, WriteOptions } from './durability.ts'
import { storageError, type StorageHealth } from './health.ts'

/**
 * NeDB through nedb-promises. `Datastore.create()` answers the NeDB datastore's own members
 * through its proxy (nedb-promises documents this), `getAllData()` among them: the live
 * documents themselves, which a rewrite serialises without copying them first.
 */
type Memory = Datastore<object> & { getAllData(): object[] }

export type Query = Record<string, unknown>
export type Stored<T> = T & { _id: string }
export interface IndexSpec {
  fieldName: string
  unique?: boolean
}

/**
 * A datafile gains a line with every write and is rewritten from memory only at open,
 * close and compaction. Left to grow, a gateway that runs for months would carry gigabytes
 * of old versions and take minutes to start; so once this many lines, and several times the
 * live documents, were appended since the last rewrite, the collection is compacted in the
 * background (a rewrite of the live documents, costing about what they weigh).
 */
export const defaultCompactAfterLines = 2000
const compactAtLiveMultiple = 4

export interface CollectionOptions {
  /** Undefined keeps the collection in memory only (tests). */
  datafile?: Datafile
  /** The field each document is stored under (see KeyedBy). */
  key?: KeyedBy
  compactAfterLines?: number
  log?: Logger
  health?: StorageHealth
}

/**
 * A collection keyed by one of its fields (a unique string, such as an order's uuid) keeps
 * each document under that value as its `_id`: it is found with `{ _id: value }` through
 * NeDB's own `_id` index, needs no second index, and put() stores a whole new version
 * without asking NeDB which document it replaced. Documents read with another `_id`
 * (written before the collection was keyed) take their key's at open, and the open's
 * rewrite stores them so.
 */
export type KeyedBy = string

/** What a write did in memory: its result, and the lines that tell the file the same. */
interface Change<R> {
  result: R
  lines: object[]
}

/**
 * What the file needs after a failure before it takes another line:
 * - `'rewrite'`: memory holds what the file does, but the file may end in a torn fragment
 *   (a failed append; or a load whose rewrite failed) that the next line would be glued to.
 * - `'reload'`: memory may hold a change the file lacks (its append or fsync failed): memory
 *   is read again from the file (torn fragment dropped), then the file is rewritten.
 */
type Repair = 'rewrite' | 'reload' | undefined

export class Collection<T extends object> {
  readonly name: string
  /** Replaced whole by a reload; reads in flight finish on the one they started with. */
  #memory: Memory
  readonly #indexes: IndexSpec[]
  readonly #key: KeyedBy | undefined
  readonly #datafile: Datafile | undefined
  /**
   * Writes and rewrites, one at a time in call order: a write's lines are appended before
   * the next write changes memory (the file's order is memory's), and a rewrite's snapshot
   * of memory holds every line appended before it and none after.
   */
  #queue: Promise<unknown> = Promise.resolve()
  #repair: Repair
  readonly #compactAfterLines: number
  #compacting = false
  /** Appended lines that start the next compaction (pushed on after one fails). */
  #compactAt: number
  readonly #log: Logger | undefined
  readonly #health: StorageHealth | undefined

  /** Reads the collection's datafile (if any) into memory and rewrites it compacted. */
  static async open<T extends object>(name: string, indexes: IndexSpec[], options: CollectionOptions = {}): Promise<Collection<T>> {
    const content = options.datafile ? await readDatafile(options.datafile.file) : { docs: [], unreadable: 0 }
    const collection = new Collection<T>(name, await inMemory(content.docs, indexes, options.key), indexes, options)
    if (content.unreadable)
      options.log?.warn({ collection: name, lines: content.unreadable }, 'datafile lines unreadable (cut short by a crash or a full disk), dropped')
    await collection.#rewriteLoaded()
    return collection
  }

  private constructor(name: string, memory: Memory, indexes: IndexSpec[], options: CollectionOptions) {
    this.name = name
    this.#memory = memory
    this.#indexes = indexes
    this.#key = options.key
    this.#datafile = options.datafile
    this.#compactAfterLines = options.compactAfterLines ?? defaultCompactAfterLines
    this.#compactAt = this.#compactAfterLines
    this.#log = options.log
    this.#health = options.health
  }

  /** Documents matching `query`, sorted by `sort` if given, at most `limit` if given. */
  find(query: Query = {}, sort?: Record<string, 1 | -1>, limit?: number): Promise<Stored<T>[]> {
    let cursor = this.#memory.find(query)
    if (sort) cursor = cursor.sort(sort)
    if (limit !== undefined) cursor = cursor.limit(limit)
    return cursor.exec() as Promise<Stored<T>[]>
  }

  findOne(query: Query): Promise<Stored<T> | null> {
    return this.#memory.findOne(query) as Promise<Stored<T> | null>
  }

  count(query: Query = {}): Promise<number> {
    return this.#memory.count(query)
  }

  insert(doc: T, options: WriteOptions = {}): Promise<Stored<T>> {
    return this.#write(async (memory) => {
      const inserted = (await memory.insert(doc)) as Stored<T>
      return { result: inserted, lines: [inserted] }
    }, options.durability)
  }

  /**
   * Stores `doc` whole as the document of its key (a keyed collection only, see KeyedBy):
   * it replaces the version there, or is added. The line appended is `doc` itself: NeDB
   * stores a copy of the same fields, so nothing needs to be read back.
   */
  put(doc: T, options: WriteOptions = {}): Promise<void> {
    const key = this.#key
    const _id = key === undefined ? undefined : (doc as Record<string, unknown>)[key]
    if (typeof _id !== 'string') return Promise.reject(new Error(`${this.name}: put() needs a keyed collection and a string key`))
    const stored = { ...doc, _id }
    return this.#write(async (memory) => {
      // A whole document (no modifiers) replaces the one found; nothing found: it is added.
      const replaced = (await memory.update({ _id }, stored)) as unknown as number
      if (!replaced) await memory.insert(stored)
      return { result: undefined, lines: [stored] }
    }, options.durability)
  }

  /** Resolves to the number of documents changed (1 for an upsert's insert). */
  update(query: Query, update: Query, options: { multi?: boolean; upsert?: boolean } & WriteOptions = {}): Promise<number> {
    const { durability, multi, upsert } = options
    return this.#write(async (memory) => {
      // The changed documents: an array with `multi`, else one or null; an upsert's insert is
      // one document even with `multi`. Each is a change, so they are the count as well.
      const changed = (await memory.update(query, update, { multi, upsert, returnUpdatedDocs: true })) as unknown as object | object[] | null | undefined
      const lines = Array.isArray(changed) ? changed : changed ? [changed] : []
      return { result: lines.length, lines }
    }, durability)
  }

  remove(query: Query, options: { multi?: boolean } & WriteOptions = {}): Promise<number> {
    const { durability, multi } = options
    return this.#write(async (memory) => {
      // One document named by its _id (a keyed collection's usual removal): no search needed.
      const keys = Object.keys(query)
      if (keys.length === 1 && keys[0] === '_id' && typeof query._id === 'string') {
        const removed = await memory.remove(query, {})
        return { result: removed, lines: removed ? [{ $$deleted: true, _id: query._id }] : [] }
      }
      // NeDB tells how many it removed, the file needs which: found first, in the same
      // queued task, so no write comes between.
      const cursor = memory.find(query)
      const ids = ((await (multi ? cursor : cursor.limit(1)).exec()) as Stored<T>[]).map((doc) => doc._id)
      if (!ids.length) return { result: 0, lines: [] }
      const removed = await memory.remove({ _id: { $in: ids } }, { multi: true })
      return { result: removed, lines: ids.map((_id) => ({ $$deleted: true, _id })) }
    }, durability)
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

  /**
   * The live documents after every write already called and before any called later (a
   * backup's picture). NeDB replaces a document on update rather than changing it, so the
   * array holds that moment's versions without a copy; serialise them with serializeLine.
   */
  snapshot(): Promise<object[]> {
    return this.#serially(async () => this.#memory.getAllData().slice())
  }

  /**
   * Rewrites the datafile from memory, after the writes already called: a new file holding
   * only the live documents replaces the old one, so a crash leaves one or the other.
   */
  compact(): Promise<void> {
    return this.#serially(() => this.#compactNow())
  }

  async #write<R>(change: (memory: Memory) => Promise<Change<R>>, durability: Durability = 'now'): Promise<R> {
    const datafile = this.#datafile
    if (!datafile) return this.#serially(async () => (await change(this.#memory)).result)
    let result: R
    // Whether a line went to the file: a write that changed nothing says nothing about the disk.
    let appended = false
    try {
      result = await this.#serially(async () => {
        if (this.#repair) await this.#repairFile()
        // A change NeDB refuses (a unique index, a bad modifier) throws here, having changed nothing.
        const { result, lines } = await change(this.#memory)
        appended = lines.length > 0
        try {
          datafile.append(lines)
        } catch (error) {
          // Memory already shows the change the file lacks (or holds part of): read memory
          // again from the file at once, so reads stop showing a write never acknowledged.
          this.#repair = 'reload'
          await this.#repairFile().catch(() => undefined)
          throw error
        }
        return result
      })
      if (durability === 'now') await this.#fsync(datafile)
      else if (durability === 'lazy') this.synced().catch(() => undefined)
      else durability.add(this.synced())
    } catch (error) {
      throw this.#storageFailure(error, 'write')
    }
    this.#compactIfGrown()
    if (appended) this.#health?.succeeded()
    return result
  }

  /** The write's fsync; when it fails the file is rewritten from what it holds. */
  async #fsync(datafile: Datafile): Promise<void> {
    try {
      await datafile.sync()
    } catch (error) {
      this.#repair = 'reload'
      await this.#serially(() => this.#repairFile()).catch(() => undefined)
      throw error
    }
  }

  /** Runs `task` after every write and rewrite called before it. */
  #serially<R>(task: () => Promise<R>): Promise<R> {
    const run = this.#queue.then(task)
    this.#queue = run.catch(() => undefined)
    return run
  }

  /** See Repair; a failure leaves what is still needed for the next write to try. */
  async #repairFile(): Promise<void> {
    if (!this.#datafile) return
    if (this.#repair === 'reload') {
      this.#memory = await inMemory((await readDatafile(this.#datafile.file)).docs, this.#indexes, this.#key)
      this.#repair = 'rewrite'
    }
    if (this.#repair === 'rewrite') {
      await this.#datafile.rewrite(this.#memory.getAllData())
      this.#repair = undefined
    }
  }

  async #compactNow(): Promise<void> {
    if (!this.#datafile) return
    // A repair rewrites the file too, and does not write memory a failed append left behind.
    if (this.#repair) await this.#repairFile()
    else await this.#datafile.rewrite(this.#memory.getAllData())
  }

  /**
   * The open's rewrite drops old versions, deletions and torn lines, as NeDB's load did. On a
   * full disk the file is left as it was and memory holds its documents, so reads are
   * served from the start; the rewrite is tried again before the next write.
   */
  async #rewriteLoaded(): Promise<void> {
    try {
      await this.#compactNow()
    } catch (error) {
      if (storageError(error) === error) throw error
      this.#health?.failed(error, `${this.name}: load`)
      this.#repair = 'rewrite'
    }
  }

  /**
   * Starts a compaction when the file has grown enough (see defaultCompactAfterLines). It is
   * queued behind the writes before it and holds the writes after it. One that fails (a full
   * disk) leaves the old file as it was and is tried again after as many lines more.
   */
  #compactIfGrown(): void {
    const appended = this.#datafile?.appendedSinceRewrite ?? 0
    if (this.#compacting || appended < this.#compactAt) return
    const worthIt = compactAtLiveMultiple * this.#memory.getAllData().length
    if (appended < worthIt) {
      // Many live documents: look again once there are enough lines for them.
      this.#compactAt = worthIt
      return
    }
    this.#compacting = true
    this.compact()
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

  /** The error to throw for a failed write; storage trouble is told to the health monitor. */
  #storageFailure(error: unknown, during: string): unknown {
    const mapped = storageError(error)
    if (mapped !== error) this.#health?.failed(error, `${this.name}: ${during}`)
    return mapped
  }
}

/** Whether a write was refused because a unique index already holds its key (it changed nothing). */
export function isDuplicateKey(error: unknown): boolean {
  return (error as { errorType?: unknown } | null | undefined)?.errorType === 'uniqueViolated'
}

/** NeDB holding `docs`, with the collection's indexes (declared in code, not in the file). */
async function inMemory(docs: object[], indexes: IndexSpec[], key: KeyedBy | undefined): Promise<Memory> {
  const memory = Datastore.create({ inMemoryOnly: true, timestampData: false }) as Memory
  for (const index of indexes) await memory.ensureIndex(index)
  if (key !== undefined) docs = keyed(docs, key)
  // One insert of the lot: NeDB checks every document (unique indexes too) and keeps none if one fails.
  if (docs.length) await memory.insert(docs)
  return memory
}

/** The documents under their key as `_id` (KeyedBy); of two with one key (a unique key never leaves two), the one read last is kept. */
function keyed(docs: object[], key: KeyedBy): object[] {
  const byKey = new Map<unknown, object>()
  for (const doc of docs) {
    const value = (doc as Record<string, unknown>)[key]
    if (typeof value !== 'string') byKey.set(doc, doc)
    else byKey.set(value, (doc as { _id?: unknown })._id === value ? doc : { ...doc, _id: value })
  }
  return [...byKey.values()]
}
