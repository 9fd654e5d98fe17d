// The history rows this process wrote, so a clock step can move their times (the gateway's
// clock and these rows share one timeline; rows written before start-up, or imported by
// `gateway history import` from another process, do not). Kept per column, as ranges of
// seq (the rowid): a row's orderCleared is always stamped by this process, but its
// orderStarted (and orderLocated) may have been stamped by an earlier run on another
// clock (an order created before a power cut, cleared after it), and a step only this
// run's clock took must not move those (docs/api.md, "Clock"). One range per column while
// nothing else writes, so a gateway that runs for months holds a few numbers.
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

export type TimeColumn = 'orderStarted' | 'orderLocated' | 'orderCleared'

/** Which of a row's times this process stamped (on its own clock). */
export type StampedColumns = Record<TimeColumn, boolean>

export const allStamped: StampedColumns = { orderStarted: true, orderLocated: true, orderCleared: true }

/** The rows this process wrote, per time column it stamped. */
export class WrittenColumns {
  readonly columns: Record<TimeColumn, WrittenRows> = { orderStarted: new WrittenRows(), orderLocated: new WrittenRows(), orderCleared: new WrittenRows() }

  add(seq: number, stamped: StampedColumns): void {
    for (const column of Object.keys(this.columns) as TimeColumn[]) if (stamped[column]) this.columns[column].add(seq)
  }
}

/**
 * Moves the times this process stamped (`written`, or one set of ranges for every column)
 * by deltaMs, in one transaction; returns the rows changed.
 */
export function shiftRows(db: DatabaseSync, written: WrittenColumns | readonly (readonly [number, number])[], deltaMs: number): number {
  const ranges: Record<TimeColumn, readonly (readonly [number, number])[]> =
    written instanceof WrittenColumns
      ? {
          orderStarted: written.columns.orderStarted.ranges(),
          orderLocated: written.columns.orderLocated.ranges(),
          orderCleared: written.columns.orderCleared.ranges(),
        }
      : { orderStarted: written, orderLocated: written, orderCleared: written }
  if (deltaMs === 0 || Object.values(ranges).every((list) => list.length === 0)) return 0
  // Every row this process wrote has its orderCleared stamped here: the most any column moved.
  let changed = 0
  db.exec('BEGIN IMMEDIATE')
  try {
    for (const column of Object.keys(ranges) as TimeColumn[]) {
      // Column names come from the fixed list above, never from input.
      const update = db.prepare(`UPDATE summaries SET ${column} = ${column} + ? WHERE seq BETWEEN ? AND ? AND ${column} IS NOT NULL`)
      let moved = 0
      for (const [from, to] of ranges[column]) moved += Number(update.run(deltaMs, from, to).changes)
      changed = Math.max(changed, moved)
    }
    // A row whose end moved back before a start an earlier run took (on a clock never known
    // right, which no step mends): the start gives way, and the location stays within the
    // span, as when the row was written (summaryOf, lib/orders/types.ts).
    const withinSpan = db.prepare(
      `UPDATE summaries SET orderStarted = min(orderStarted, orderCleared),
         orderLocated = CASE WHEN orderLocated IS NULL THEN NULL ELSE min(max(orderLocated, min(orderStarted, orderCleared)), orderCleared) END
       WHERE seq BETWEEN ? AND ? AND (orderStarted > orderCleared OR orderLocated < orderStarted OR orderLocated > orderCleared)`,
    )
    for (const [from, to] of ranges.orderCleared) withinSpan.run(from, to)
    db.exec('COMMIT')
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
  return changed
}
