// Daily statistics (docs/api.md, "History and statistics"): the orders cleared today, in the gateway's timezone,
// each measured from start to clear (the vendor's measure). One aggregate over the
// (orderCleared, orderStarted) index: the day's rows are never read from the table.
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { dayBounds } from '../kernel/time.ts'
import type { StatisticsRequest, DailyStatistics } from './types.ts'
export type { StatisticsRequest, DailyStatistics } from './types.ts'

interface Aggregate {
  n: number
  totalMs: number | null
  exceeded: number | null
}

export class StatisticsQuery {
  readonly #aggregate: StatementSync

  constructor(db: DatabaseSync) {
    this.#aggregate = db.prepare(`
      SELECT count(*) AS n,
             -- max(0, ...): a row that ends before it starts (imported, or written before the
             -- clock's provenance was kept, lib/orders/stamps.ts) never makes the average negative.
             sum(max(0, orderCleared - orderStarted)) AS totalMs,
             sum(orderCleared - orderStarted > ?) AS exceeded
        FROM summaries
       WHERE orderCleared >= ? AND orderCleared < ?`)
  }

  today({ now, timezone, targetTime }: StatisticsRequest): DailyStatistics {
    const { start, end } = dayBounds(now, timezone)
    const row = this.#aggregate.get(targetTime * 1000, start, end) as unknown as Aggregate
    const ordersToday = Number(row.n)
    const exceededToday = Number(row.exceeded ?? 0)
    if (ordersToday === 0) return { ordersToday, averageSeconds: 0, exceededToday, percentGoal: 0, targetTime }
    const averageSeconds = Math.round(Number(row.totalMs) / ordersToday / 100) / 10
    const percentGoal = Math.floor(((ordersToday - exceededToday) * 1000) / ordersToday) / 10
    return { ordersToday, averageSeconds, exceededToday, percentGoal, targetTime }
  }
}
