// History lists: filters, newest-first paging and the count of all matching. One prepared
// statement per filter combination (built on first use), each answerable by one index
// range walk (see the indexes in store.ts), so a page costs the same at any history size.
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { OrderSummary } from '../orders/types.ts'
import { rowToSummary, summaryColumns as columns, type SummaryRow, type SummaryTuple, tupleToSummary } from './rows.ts'
import type { HistoryFilter, PageRequest, HistoryPage } from './types.ts'
export type { HistoryFilter, PageRequest, HistoryPage } from './types.ts'

interface Clauses {
  where: string
  values: (number | string)[]
}

function clausesOf(filter: HistoryFilter): Clauses {
  const parts: string[] = []
  const values: (number | string)[] = []
  if (filter.orderType !== undefined) {
    parts.push('orderType = ?')
    values.push(filter.orderType)
  }
  if (filter.locationName !== undefined) {
    parts.push('locationName = ?')
    values.push(filter.locationName)
  }
  if (filter.createdAfter !== undefined) {
    parts.push('orderStarted >= ?')
    values.push(filter.createdAfter)
  }
  if (filter.createdBefore !== undefined) {
    parts.push('orderStarted < ?')
    values.push(filter.createdBefore)
  }
  return { where: parts.join(' AND '), values }
}

/** The page query for a filter; its parameters are the filter's values, then asOf, limit, offset. */
export function pageSql(where: string): string {
  const bounded = where ? `WHERE ${where} AND seq <= ?` : 'WHERE seq <= ?'
  return `SELECT ${columns} FROM summaries ${bounded} ORDER BY orderStarted DESC, uuid DESC LIMIT ? OFFSET ?`
}

/** The count query for a (non-empty) filter; its parameters are the filter's values, then asOf. */
export function countSql(where: string): string {
  return `SELECT count(*) AS n FROM summaries WHERE ${where} AND seq <= ?`
}

function isUnfiltered(filter: HistoryFilter): boolean {
  return filter.orderType === undefined && filter.locationName === undefined && filter.createdAfter === undefined && filter.createdBefore === undefined
}

export class HistoryQueries {
  readonly #db: DatabaseSync
  readonly #statements = new Map<string, StatementSync>()
  /** Page statements answer rows as arrays: building 25 objects cost a third of a page. */
  readonly #pageStatements = new Map<string, StatementSync>()
  readonly #highWater: StatementSync
  /**
   * Positions without a summary, counted once at open (a few milliseconds at a million
   * rows). Zero unless someone deleted rows by hand: inserts, from any process, never
   * leave gaps (see store.ts), so the unfiltered count as of P is P - gaps.
   */
  readonly #gaps: number

  constructor(db: DatabaseSync) {
    this.#db = db
    this.#highWater = db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM summaries')
    const { gaps } = db.prepare('SELECT coalesce(max(seq), 0) - count(*) AS gaps FROM summaries').get() as { gaps: number }
    this.#gaps = Number(gaps)
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql)
    if (!statement) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  #pageStatement(where: string): StatementSync {
    let statement = this.#pageStatements.get(where)
    if (!statement) {
      statement = this.#db.prepare(pageSql(where))
      statement.setReturnArrays(true)
      this.#pageStatements.set(where, statement)
    }
    return statement
  }

  /** The newest position in history: pages read as of it are fixed (positions only grow). */
  highWater(): number {
    return Number((this.#highWater.get() as { seq: number }).seq)
  }

  page(filter: HistoryFilter, request: PageRequest): HistoryPage {
    // Page and count must read the same snapshot, even while another process imports.
    this.#db.exec('BEGIN')
    try {
      const highWater = this.highWater()
      const asOf = request.asOf === undefined ? highWater : Math.min(request.asOf, highWater)
      const { where, values } = clausesOf(filter)
      const rows = this.#pageStatement(where).all(...values, asOf, request.limit, request.offset) as unknown as SummaryTuple[]
      const count = this.#count(filter, where, values, asOf, highWater)
      this.#db.exec('COMMIT')
      return { count, items: rows.map(tupleToSummary), asOf }
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      throw error
    }
  }

  #count(filter: HistoryFilter, where: string, values: (number | string)[], asOf: number, highWater: number): number {
    // count(*) would walk a whole index (milliseconds at a million rows); positions run
    // 1..highWater without gaps, so the unfiltered count as of asOf is asOf itself.
    if (isUnfiltered(filter)) return Math.max(0, Math.min(asOf, highWater) - this.#gaps)
    const row = this.#statement(countSql(where)).get(...values, asOf) as { n: number }
    return Number(row.n)
  }

  /** SQLite's plan for a filter's page and count queries (tests hold them to index walks). */
  explain(filter: HistoryFilter): { page: string; count: string } {
    const { where, values } = clausesOf(filter)
    const plan = (sql: string, args: (number | string)[]) =>
      (this.#db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((row) => row.detail).join('; ')
    return {
      page: plan(pageSql(where), [...values, 0, 25, 0]),
      count: where ? plan(countSql(where), [...values, 0]) : plan('SELECT max(seq) FROM summaries', []),
    }
  }

  /** Every matching summary, oldest first, one row at a time. */
  *iterate(filter: HistoryFilter): IterableIterator<OrderSummary> {
    const { where, values } = clausesOf(filter)
    const sql = `SELECT ${columns} FROM summaries ${where ? `WHERE ${where}` : ''} ORDER BY orderStarted, uuid`
    for (const row of this.#db.prepare(sql).iterate(...values)) yield rowToSummary(row as unknown as SummaryRow)
  }
}
