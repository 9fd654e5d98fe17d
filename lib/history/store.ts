// Order history in node:sqlite: years of summaries cost megabytes, not gigabytes (see
// docs/architecture.md, Storage). Inserting is idempotent on uuid, which makes clearing crash-safe:
// summary first, then the active order is removed; a restart removes any active order
// whose uuid is already here.
//
// Every summary also gets `seq`, its insertion position (the rowid: max + 1 at insert). A
// list answer names the highest seq it saw (`asOf`); later pages asked "as of" that value
// ignore summaries inserted since, which is what makes offset paging stable while orders
// are being cleared (docs/api.md, History and statistics). History is append-only: nothing
// here deletes or updates a summary, so positions are never reused, and they run 1..N
// without gaps (a skipped duplicate or a rolled-back insert takes no position), which
// lets the unfiltered count be read from max(seq) instead of walking a million rows.
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { OrderSummary } from '../orders/types.ts'
import { HighWater } from './high-water.ts'
import { HistoryQueries, type HistoryFilter, type HistoryPage, type PageRequest } from './query.ts'
import { rowToSummary, summaryColumns, type SummaryRow } from './rows.ts'
import { HourlyQuery, type HourlyRequest, type HourlyStatistics } from './hourly.ts'
import { StatisticsQuery, type DailyStatistics, type StatisticsRequest } from './stats.ts'
import { allStamped, shiftRows, WrittenColumns, type StampedColumns } from './written.ts'

export { rowToSummary, type SummaryRow } from './rows.ts'

export interface HistoryStoreOptions {
  /** FULL fsyncs every commit; NORMAL (WAL) may lose the last commits on power loss. */
  synchronous?: 'NORMAL' | 'FULL'
  /** Page cache in KiB (SQLite's default is 2 MiB); bulk loaders raise it. */
  cacheKiB?: number
}

const schema = `
  CREATE TABLE IF NOT EXISTS summaries (
    seq INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    name INTEGER NOT NULL,
    orderType TEXT NOT NULL CHECK (orderType IN ('ON_PREMISE', 'TO_GO')),
    locationName INTEGER,
    orderStarted INTEGER NOT NULL,
    orderLocated INTEGER,
    orderCleared INTEGER NOT NULL
  );
  -- One index per filter combination, each ending in the page order (orderStarted, uuid),
  -- so a page is a range walk and never a sort. Index entries carry seq (the rowid), so
  -- the "as of" bound is checked without touching the table.
  CREATE INDEX IF NOT EXISTS summaries_started ON summaries (orderStarted, uuid);
  CREATE INDEX IF NOT EXISTS summaries_type_started ON summaries (orderType, orderStarted, uuid);
  CREATE INDEX IF NOT EXISTS summaries_location_started ON summaries (locationName, orderStarted, uuid);
  CREATE INDEX IF NOT EXISTS summaries_location_type_started ON summaries (locationName, orderType, orderStarted, uuid);
  -- Statistics read only these two columns for the day's clears: a covering index.
  CREATE INDEX IF NOT EXISTS summaries_cleared ON summaries (orderCleared, orderStarted);
`

/** SQLite's "disk full" and I/O errors (primary codes 13 and 10, whatever the extended code). */
export function isDiskFull(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | undefined)?.errcode
  return typeof errcode === 'number' && ((errcode & 0xff) === 13 || (errcode & 0xff) === 10)
}

export class HistoryStore {
  readonly db: DatabaseSync
  readonly #insert: StatementSync
  readonly #has: StatementSync
  readonly #get: StatementSync
  readonly #queries: HistoryQueries
  readonly #statistics: StatisticsQuery
  readonly #hourly: HourlyQuery
  readonly #highWater: HighWater
  /** Rows this process inserted, per time it stamped: what a clock step moves (written.ts). */
  readonly #written = new WrittenColumns()

  constructor(file: string, options: HistoryStoreOptions = {}) {
    const pragmas = `
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'};
      PRAGMA busy_timeout = 5000;
      ${options.cacheKiB ? `PRAGMA cache_size = -${Math.floor(options.cacheKiB)};` : ''}
    `
    let db = new DatabaseSync(file)
    try {
      db.exec(pragmas)
    } catch (error) {
      if (!isDiskFull(error)) throw error
      // A full disk: SQLite cannot size the shared-memory file (-shm) that WAL readers
      // share, and the gateway would not start. With exclusive locking set first it keeps
      // that index in its own memory instead, so history is read as usual and an insert
      // answers -37 until space is back; another process (`gateway history import`) has to
      // wait for the next start.
      db.close()
      db = new DatabaseSync(file)
      db.exec(`PRAGMA locking_mode = EXCLUSIVE; ${pragmas}`)
    }
    this.db = db
    this.db.exec(`BEGIN IMMEDIATE; ${schema} COMMIT;`)
    this.#insert = this.db.prepare(
      // Only a uuid already present is skipped; any other broken row throws, so a caller
      // never mistakes a refused summary for one that is safely in history.
      `INSERT INTO summaries (uuid, name, orderType, locationName, orderStarted, orderLocated, orderCleared)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uuid) DO NOTHING`,
    )
    this.#has = this.db.prepare('SELECT 1 AS found FROM summaries WHERE uuid = ?')
    this.#get = this.db.prepare(
      `SELECT ${summaryColumns} FROM summaries WHERE uuid = ?`,
    )
    this.#queries = new HistoryQueries(this.db)
    this.#statistics = new StatisticsQuery(this.db)
    this.#hourly = new HourlyQuery(this.db)
    this.#highWater = new HighWater(() => this.#queries.highWater(), file === ':memory:' ? undefined : file)
  }

  /**
   * Inserts a summary; false when that uuid is already in history (idempotent). `stamped`:
   * which of its times were taken on this process's clock (a later step moves only those);
   * all of them unless the caller knows better (lib/orders/stamps.ts).
   */
  insert(summary: OrderSummary, stamped: StampedColumns = allStamped): boolean {
    const result = this.#insert.run(
      summary.uuid,
      summary.name,
      summary.orderType,
      summary.locationName,
      summary.orderStarted,
      summary.orderLocated,
      summary.orderCleared,
    )
    this.#highWater.changed()
    if (Number(result.changes) === 0) return false
    this.#written.add(Number(result.lastInsertRowid), stamped)
    return true
  }

  /**
   * The clock was stepped: moves the times this process stamped on the rows it inserted
   * by deltaMs, so they stay on the gateway clock's timeline (lib/orders/clock-mend.ts).
   * The only update history ever sees; positions (seq) do not change.
   */
  shiftWritten(deltaMs: number): number {
    return shiftRows(this.db, this.#written, deltaMs)
  }

  /** The latest time history holds (0 when empty): part of the clock's high-water mark. */
  latestTime(): number {
    const row = this.db.prepare('SELECT max(orderCleared) AS latest FROM summaries').get() as { latest: number | null }
    return row.latest ?? 0
  }

  /** Inserts many summaries in one transaction (one commit); returns how many were new. */
  insertMany(summaries: Iterable<OrderSummary>): number {
    let inserted = 0
    this.db.exec('BEGIN IMMEDIATE')
    try {
      for (const summary of summaries) if (this.insert(summary)) inserted++
      this.db.exec('COMMIT')
    } catch (error) {
      this.db.exec('ROLLBACK')
      throw error
    }
    return inserted
  }

  has(uuid: string): boolean {
    return this.#has.get(uuid) !== undefined
  }

  get(uuid: string): OrderSummary | undefined {
    const row = this.#get.get(uuid) as SummaryRow | undefined
    return row ? rowToSummary(row) : undefined
  }

  /** One page, newest first by orderStarted then uuid, with the count of all matching. */
  list(filter: HistoryFilter, page: PageRequest): HistoryPage {
    return this.#queries.page(filter, page)
  }

  /** The newest position in history (0 when empty). */
  highWater(): number {
    return this.#highWater.get()
  }

  /** Every matching summary, oldest first, read lazily (export: constant memory). */
  iterate(filter: HistoryFilter = {}): IterableIterator<OrderSummary> {
    return this.#queries.iterate(filter)
  }

  /** Figures for the calendar day containing `now` in `timezone` (docs/api.md, "History and statistics"). */
  statistics(request: StatisticsRequest): DailyStatistics {
    return this.#statistics.today(request)
  }

  /** Per hour of the day, for today or the last seven days (the manager's charts). */
  hourly(request: HourlyRequest): HourlyStatistics {
    return this.#hourly.hourly(request)
  }

  close(): void {
    this.#highWater.close()
    if (this.db.isOpen) this.db.close()
  }
}
