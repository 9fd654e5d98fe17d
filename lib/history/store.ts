// Order history in node:sqlite: years of summaries cost megabytes, not gigabytes (see
// DESIGN.md, Storage). Inserting is idempotent on uuid, which makes clearing crash-safe:
// summary first, then the active order is removed; a restart removes any active order
// whose uuid is already here.
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { OrderSummary, OrderType } from '../orders/types.ts'

interface SummaryRow {
  uuid: string
  name: number
  orderType: string
  locationName: number | null
  orderStarted: number
  orderLocated: number | null
  orderCleared: number
}

export interface HistoryStoreOptions {
  /** FULL fsyncs every commit; NORMAL (WAL) may lose the last commits on power loss. */
  synchronous?: 'NORMAL' | 'FULL'
}

export function rowToSummary(row: SummaryRow): OrderSummary {
  return {
    uuid: row.uuid,
    name: row.name,
    orderType: row.orderType as OrderType,
    locationName: row.locationName,
    orderStarted: row.orderStarted,
    orderLocated: row.orderLocated,
    orderCleared: row.orderCleared,
  }
}

export class HistoryStore {
  readonly db: DatabaseSync
  readonly #insert: StatementSync
  readonly #has: StatementSync
  readonly #get: StatementSync

  constructor(file: string, options: HistoryStoreOptions = {}) {
    this.db = new DatabaseSync(file)
    this.db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'};
      PRAGMA busy_timeout = 5000;
      CREATE TABLE IF NOT EXISTS summaries (
        uuid TEXT PRIMARY KEY,
        name INTEGER NOT NULL,
        orderType TEXT NOT NULL,
        locationName INTEGER,
        orderStarted INTEGER NOT NULL,
        orderLocated INTEGER,
        orderCleared INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS summaries_started ON summaries (orderStarted, uuid);
      CREATE INDEX IF NOT EXISTS summaries_type_started ON summaries (orderType, orderStarted, uuid);
      CREATE INDEX IF NOT EXISTS summaries_location_started ON summaries (locationName, orderStarted, uuid);
      CREATE INDEX IF NOT EXISTS summaries_cleared ON summaries (orderCleared);
    `)
    this.#insert = this.db.prepare(
      `INSERT OR IGNORE INTO summaries (uuid, name, orderType, locationName, orderStarted, orderLocated, orderCleared)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    this.#has = this.db.prepare('SELECT 1 AS found FROM summaries WHERE uuid = ?')
    this.#get = this.db.prepare('SELECT * FROM summaries WHERE uuid = ?')
  }

  /** Inserts a summary; false when that uuid is already in history (idempotent). */
  insert(summary: OrderSummary): boolean {
    const result = this.#insert.run(
      summary.uuid,
      summary.name,
      summary.orderType,
      summary.locationName,
      summary.orderStarted,
      summary.orderLocated,
      summary.orderCleared,
    )
    return Number(result.changes) > 0
  }

  has(uuid: string): boolean {
    return this.#has.get(uuid) !== undefined
  }

  get(uuid: string): OrderSummary | undefined {
    const row = this.#get.get(uuid) as SummaryRow | undefined
    return row ? rowToSummary(row) : undefined
  }

  close(): void {
    if (this.db.isOpen) this.db.close()
  }
}
