// The newest position in history, without asking SQLite on every page request. Asking costs
// a statement (15-20 µs under load, as much as the rest of a cached page answer), and the
// answer only changes when a summary is written: by this process (it says so: changed()),
// or by another one (`gateway history import` beside the running gateway). Another
// process's commit writes history.sqlite-wal (or the database file), which a watch on the
// data dir notices; a value older than maxAgeMs is read again anyway, so a missed
// notification delays what a page shows by at most that. Without a watch, every get() reads.
import { watch, type FSWatcher } from 'node:fs'
import path from 'node:path'
import type { Clock } from '../kernel/clock.ts'

export class HighWater {
  readonly #read: () => number
  readonly #clock: Pick<Clock, 'now'>
  readonly #watcher: FSWatcher | undefined
  /** How long a value is trusted: forever in memory (no other writer), 0 without a watch. */
  #maxAgeMs: number
  #value = 0
  #readAt = -Infinity

  /** `file`: the database file, or undefined for an in-memory database. */
  constructor(read: () => number, file: string | undefined, maxAgeMs = 1000, clock: Pick<Clock, 'now'> = Date) {
    this.#read = read
    this.#clock = clock
    this.#maxAgeMs = file === undefined ? Infinity : maxAgeMs
    if (file === undefined) return
    const written = new Set([path.basename(file), `${path.basename(file)}-wal`])
    try {
      this.#watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name === null || written.has(String(name))) this.changed()
      })
      this.#watcher.on('error', () => this.#unwatched())
    } catch {
      this.#unwatched()
    }
  }

  get(): number {
    const now = this.#clock.now()
    if (this.#maxAgeMs === 0 || now - this.#readAt >= this.#maxAgeMs) {
      this.#value = this.#read()
      this.#readAt = now
    }
    return this.#value
  }

  /** History was written: the next get() asks SQLite. */
  changed(): void {
    this.#readAt = -Infinity
  }

  close(): void {
    this.#watcher?.close()
  }

  #unwatched(): void {
    this.#watcher?.close()
    this.#maxAgeMs = 0
  }
}
