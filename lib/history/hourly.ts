// The manager's charts (extension: GET /api/v2/statistics/hourly): for today or the last
// seven days, the orders cleared in each hour of the day (in the gateway's timezone) with the
// median and 90th percentile of their start-to-clear time, the measure the target applies to
// (docs/api.md, "History and statistics"). Read over the (orderCleared, orderStarted) covering index; percentiles are
// taken in memory from the durations (a week of a busy restaurant is a few tens of thousands).
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { dayBounds, offsetMinutes } from '../kernel/time.ts'
import type { HourlyRequest, HourlyStatistics } from './types.ts'
export type { HourlyRange, HourlyRequest, HourFigures, HourlyStatistics } from './types.ts'

/** The value below which `share` of the sorted values lie (nearest rank). */
export function percentile(sorted: number[], share: number): number | null {
  if (!sorted.length) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!
}

const tenths = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10)

export class HourlyQuery {
  readonly #rows: StatementSync

  constructor(db: DatabaseSync) {
    this.#rows = db.prepare(
      'SELECT orderCleared AS cleared, max(0, orderCleared - orderStarted) AS ms FROM summaries WHERE orderCleared >= ? AND orderCleared < ?',
    )
  }

  hourly({ now, timezone, targetTime, range }: HourlyRequest): HourlyStatistics {
    const today = dayBounds(now, timezone)
    const days = range === 'week' ? 7 : 1
    let from = today.start
    // Day by day, so a day of 23 or 25 hours (DST) is still one day.
    for (let i = 1; i < days; i++) from = dayBounds(from - 1, timezone).start
    const durations: number[][] = Array.from({ length: 24 }, () => [])
    for (const row of this.#rows.iterate(from, today.end) as Iterable<{ cleared: number; ms: number }>) {
      const local = Number(row.cleared) + offsetMinutes(Number(row.cleared), timezone) * 60_000
      durations[Math.floor(local / 3_600_000) % 24]!.push(Number(row.ms))
    }
    const hours = durations.map((values, hour) => {
      values.sort((a, b) => a - b)
      return {
        hour,
        orders: values.length,
        medianSeconds: tenths(percentile(values, 0.5)),
        p90Seconds: tenths(percentile(values, 0.9)),
        overTarget: values.filter((ms) => ms > targetTime * 1000).length,
      }
    })
    return { range, from, to: today.end, days, targetTime, hours }
  }
}
