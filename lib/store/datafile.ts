// One collection's datafile: the log of its writes in NeDB's line format, appended to by
// Collection (collection.ts) and rewritten from memory at load, compaction and close. A
// write's lines are written at once, synchronously, through one long-lived descriptor: the
// kernel copies them to the page cache in microseconds (NeDB's own persistence opened,
// wrote and closed the file through the thread pool for every document, about 1 ms), a crash
// of the process cannot lose them, and a full disk fails the write before its caller is
// answered. Durability against power loss is the group commit's fdatasync, shared by every
// append made before it starts (sync()).
import { closeSync, fdatasync, openSync, promises as fs, writeSync } from 'node:fs'
import { promisify } from 'node:util'
// NeDB's own line format (dates as {"$$date":…}, undefined dropped), so files stay NeDB's.
import model from '@seald-io/nedb/lib/model.js'
import { replaceFile } from './replace-file.ts'

const datasync = promisify(fdatasync)
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** After the I/O callbacks of the current event-loop turn: the writes they make join the group. */
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * NeDB's line for a document. Its serialiser runs a replacer on every value, for dates; the
 * gateway stores times as numbers, so plain JSON gives the same line at a fraction of the cost
 * (NeDB validated the keys when the document entered its memory).
 */
export function serializeLine(doc: object): string {
  return containsDate(doc) ? model.serialize(doc) : JSON.stringify(doc)
}

function containsDate(value: unknown): boolean {
  if (value instanceof Date) return true
  if (typeof value !== 'object' || value === null) return false
  for (const key in value) if (containsDate((value as Record<string, unknown>)[key])) return true
  return false
}

export class Datafile {
  readonly file: string
  readonly #intervalMs: number
  #fd: number | undefined
  /** Appends made / appends known to be on disk (counted, so an idle sync costs nothing). */
  #written = 0
  #durable = 0
  /** The next group commit, not yet started: every sync() until it starts joins it. */
  #next: Promise<void> | undefined
  /** The fdatasync in progress (never rejects): the descriptor is not closed under it. */
  #syncing: Promise<void> = Promise.resolve()
  /** Lines appended since the file was last rewritten from memory (its size beyond the live documents). */
  #appendedSinceRewrite = 0

  constructor(file: string, intervalMs: number) {
    this.file = file
    this.#intervalMs = intervalMs
  }

  /**
   * Writes the documents' lines (throws ENOSPC and friends, having perhaps written part of
   * them: the caller rewrites the file before its next append).
   */
  append(docs: object[]): void {
    let text = ''
    for (const doc of docs) text += `${serializeLine(doc)}\n`
    if (text === '') return
    this.#fd ??= openSync(this.file, 'a', 0o600)
    try {
      // The text itself: node encodes it without a Buffer for us to allocate. A short write
      // (full disk) writes the rest from bytes, and the next call throws with the reason.
      const written = writeSync(this.#fd, text)
      if (written < Buffer.byteLength(text)) {
        const bytes = Buffer.from(text)
        for (let offset = written; offset < bytes.length; ) offset += writeSync(this.#fd, bytes, offset)
      }
    } catch (error) {
      // The file is rewritten before the next write (collection.ts): no descriptor is kept
      // for it meanwhile (closed once no sync uses it), so a full disk holds no file open.
      void this.release()
      throw error
    }
    this.#written++
    this.#appendedSinceRewrite += docs.length
  }

  get appendedSinceRewrite(): number {
    return this.#appendedSinceRewrite
  }

  /**
   * Resolves once every append made so far is on disk: the group commit. One fdatasync runs
   * at a time, and the next starts once it has finished and the window has passed (the rest
   * of this event-loop turn, plus `intervalMs` if set), covering every append made before
   * it starts. So a write waits for at most the fdatasync in progress and its own; under
   * load, the writes made while one runs share the next.
   */
  sync(): Promise<void> {
    if (this.#durable >= this.#written) return Promise.resolve()
    this.#next ??= this.#groupCommit()
    return this.#next
  }

  async #groupCommit(): Promise<void> {
    await (this.#intervalMs > 0 ? delay(this.#intervalMs) : endOfTurn())
    await this.#syncing
    // From here on, appends need the next group: this fdatasync may start before they land.
    this.#next = undefined
    const covered = this.#written
    // The fdatasync just finished (or a rewrite) may have covered everything already.
    if (this.#durable >= covered) return
    const run = this.#datasync()
    this.#syncing = run.catch(() => undefined)
    await run
    this.#durable = Math.max(this.#durable, covered)
  }

  /**
   * Replaces the file with `docs`' lines, crash-safely (replace-file.ts). The caller appends
   * nothing until it settles (Collection's queue). On failure the file is as it was.
   */
  async rewrite(docs: object[]): Promise<void> {
    let text = ''
    for (const doc of docs) text += `${serializeLine(doc)}\n`
    // Later appends must go to the new file, not the one the rename unlinks.
    await this.release()
    await replaceFile(this.file, text)
    // The new file holds every append so far and is fsynced.
    this.#durable = this.#written
    this.#appendedSinceRewrite = 0
  }

  /** Closes the descriptor once no sync uses it (the next append opens the file again). */
  async release(): Promise<void> {
    for (let syncing = this.#syncing; ; syncing = this.#syncing) {
      await syncing
      if (syncing === this.#syncing) break
    }
    if (this.#fd === undefined) return
    closeSync(this.#fd)
    this.#fd = undefined
  }

  async #datasync(): Promise<void> {
    if (this.#fd !== undefined) return datasync(this.#fd)
    // Released (a rewrite that failed, or is under way): sync the file by name, and do not
    // keep the descriptor, which may be about to point at a replaced file.
    const handle = await fs.open(this.file, 'r+')
    try {
      await handle.datasync()
    } finally {
      await handle.close()
    }
  }
}
