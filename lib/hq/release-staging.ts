// An uploaded release on its way into PostgreSQL (issue 46): written to a temporary file
// piece by piece as it arrives and hashed on the way, then read back a chunk at a time by the
// transaction that stores it, so HQ never holds a whole archive in memory (a 256 MiB upload
// used to be joined into one Buffer). The file is the process's alone: made 0600 in a
// directory of its own (0700, under TMPDIR), and unlinked as soon as it is open, so no other
// user can read or swap it and an HQ killed mid-upload leaves nothing on the disk.
import { createHash } from 'node:crypto'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** An archive whose bytes are all there: its size, its SHA-256, and its bytes in pieces. */
export interface StagedArchive {
  readonly size: number
  /** The SHA-256 (hex) of every byte written. */
  digest(): string
  /** The bytes from the start, `bytes` at a time (the last piece shorter). */
  pieces(bytes: number): AsyncIterable<Buffer>
}

export class ReleaseStaging implements StagedArchive {
  readonly #file: fs.FileHandle
  readonly #hash = createHash('sha256')
  #size = 0
  #sha256: string | undefined
  #closed = false

  private constructor(file: fs.FileHandle) {
    this.#file = file
  }

  /** A new empty staging file under `dir` (the system's temporary directory, TMPDIR, by default). */
  static async open(dir = os.tmpdir()): Promise<ReleaseStaging> {
    const own = await fs.mkdtemp(path.join(dir, 'hq-release-'))
    try {
      const file = await fs.open(path.join(own, 'archive'), 'wx+', 0o600)
      // Gone from the directory at once: the open handle is all that reaches it from now on.
      await fs.rm(own, { recursive: true }).catch(async (error: unknown) => {
        await file.close()
        throw error
      })
      return new ReleaseStaging(file)
    } catch (error) {
      await fs.rm(own, { recursive: true, force: true }).catch(() => undefined)
      throw error
    }
  }

  get size(): number {
    return this.#size
  }

  /** Appends the next piece of the archive. */
  async write(chunk: Buffer): Promise<void> {
    if (this.#sha256 !== undefined) throw new Error('the staged archive is complete: nothing more can be written')
    let written = 0
    while (written < chunk.length) {
      const { bytesWritten } = await this.#file.write(chunk, written, chunk.length - written, this.#size + written)
      written += bytesWritten
    }
    this.#hash.update(chunk)
    this.#size += chunk.length
  }

  /** The digest of what was written; nothing more can be written after it. */
  digest(): string {
    this.#sha256 ??= this.#hash.digest('hex')
    return this.#sha256
  }

  async *pieces(bytes: number): AsyncIterable<Buffer> {
    for (let position = 0; position < this.#size; position += bytes) {
      // A buffer of its own per piece: whoever takes it may keep it while the next is read.
      const piece = Buffer.allocUnsafe(Math.min(bytes, this.#size - position))
      let filled = 0
      while (filled < piece.length) {
        const { bytesRead } = await this.#file.read(piece, filled, piece.length - filled, position + filled)
        if (bytesRead === 0) throw new Error(`the staged archive ends at ${position + filled} bytes, ${this.#size} were written`)
        filled += bytesRead
      }
      yield piece
    }
  }

  /** Closes the file (already unlinked: its space is freed). Safe to call more than once. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#file.close()
  }
}
