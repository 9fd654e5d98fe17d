// Whether the data dir takes writes, told to the log once per episode: a full (or read-only)
// disk makes every change answer 503 -37, which by itself is just a stream of request lines.
// The first failure logs a warning with the free space; the first write that works again
// logs that it does. Start-up on a full disk is such an episode too (lib/store/db.ts).
import { statfsSync } from 'node:fs'
import { DomainError } from '../kernel/errors.ts'
import type { Logger } from '../kernel/log.ts'

/** Errors from the file system that mean "storage cannot take writes right now". */
const unavailableCodes = new Set(['ENOSPC', 'EROFS', 'EIO', 'EDQUOT', 'EACCES', 'EPERM'])

/** STORAGE_UNAVAILABLE (-37) for such an error; any other error as it is. */
export function storageError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code && unavailableCodes.has(code)) return new DomainError('STORAGE_UNAVAILABLE', undefined, { cause: error })
  return error
}

export class StorageHealth {
  readonly #dir: string | undefined
  readonly #log: Logger | undefined
  #failing = false

  constructor(dir: string | undefined, log: Logger | undefined) {
    this.#dir = dir
    this.#log = log
  }

  get failing(): boolean {
    return this.#failing
  }

  /** A write failed for lack of storage (`during`: what was being written). */
  failed(error: unknown, during: string): void {
    if (this.#failing) return
    this.#failing = true
    const code = (error as NodeJS.ErrnoException | undefined)?.code
    this.#log?.warn(
      { code, during, dataDir: this.#dir, freeBytes: this.freeBytes() },
      'storage cannot take writes (disk full or read-only): changes are refused with -37 until it can',
    )
  }

  /** A write went through: ends an episode. */
  succeeded(): void {
    if (!this.#failing) return
    this.#failing = false
    this.#log?.info({ dataDir: this.#dir, freeBytes: this.freeBytes() }, 'storage takes writes again')
  }

  /** Bytes an unprivileged writer may still use on the data dir's file system. */
  freeBytes(): number | undefined {
    if (!this.#dir) return undefined
    try {
      const stats = statfsSync(this.#dir)
      return stats.bavail * stats.bsize
    } catch {
      return undefined
    }
  }
}
