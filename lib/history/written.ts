// The history rows this process wrote, so a clock step can move their times (the gateway's
// clock and these rows share one timeline; rows written before start-up, or imported by
// `gateway history import` from another process, do not). Kept as ranges of seq (the
// rowid): one range while nothing else writes, so a gateway that runs for months holds a
// few numbers, not one per order.
import type { DatabaseSync } from 'node:sqlite'

export class WrittenRows {
  readonly #ranges: [number, number][] = []

  add(seq: number): void {
    const last = this.#ranges.at(-1)
    if (last && seq === last[1] + 1) last[1] = seq
    else this.#ranges.push([seq, seq])
  }

  ranges(): readonly (readonly [number, number])[] {
    return this.#ranges
  }
}

/** Moves every time of the rows in `ranges` by deltaMs, in one transaction; the rows changed. */
export function shiftRows(db: DatabaseSync, ranges: readonly (readonly [number, number])[], deltaMs: number): number {
  if (ranges.length === 0 || deltaMs === 0) return 0
  const update = db.prepare(
    `UPDATE summaries SET orderStarted = orderStarted + ?, orderCleared = orderCleared + ?,
       orderLocated = CASE WHEN orderLocated IS NULL THEN NULL ELSE orderLocated + ? END
     WHERE seq BETWEEN ? AND ?`,
  )
  let changed = 0
  db.exec('BEGIN IMMEDIATE')
  try {
    for (const [from, to] of ranges) changed += Number(update.run(deltaMs, deltaMs, deltaMs, from, to).changes)
    db.exec('COMMIT')
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
  return changed
}
