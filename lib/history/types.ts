// The history's request and answer shapes (pages, daily and hour-by-hour statistics). Data
// only, so the function contract can name them without loading SQLite's statements.
import type { OrderSummary, OrderType } from '../orders/types.ts'

export interface HistoryFilter {
  /** orderStarted >= createdAfter (ms, inclusive). */
  createdAfter?: number
  /** orderStarted < createdBefore (ms, exclusive). */
  createdBefore?: number
  orderType?: OrderType
  locationName?: number
}

export interface PageRequest {
  offset: number
  limit: number
  /**
   * Snapshot position from an earlier page's `asOf`: summaries inserted after it are left
   * out, so pages of one walk see one fixed, ordered set. Absent: the history as it is now.
   */
  asOf?: number
}

export interface HistoryPage {
  /** How many summaries match the filters (as of `asOf`), not the page size. */
  count: number
  items: OrderSummary[]
  /** The snapshot this page was read at: pass it back as `asOf` for the next pages. */
  asOf: number
}

export interface StatisticsRequest {
  now: number
  /** The gateway's timezone (IANA name or "+HH:MM"): decides where "today" begins. */
  timezone: string
  /** Target time in seconds (> 0). */
  targetTime: number
}

export interface DailyStatistics {
  /** Orders cleared today. */
  ordersToday: number
  /** Mean start-to-clear time in seconds, one decimal; 0 when none. */
  averageSeconds: number
  /** Orders that took strictly longer than the target. */
  exceededToday: number
  /** Percentage within target, one decimal, rounded down (100 only when none exceeded); 0 when none. */
  percentGoal: number
  targetTime: number
}

export type HourlyRange = 'day' | 'week'

export interface HourlyRequest {
  now: number
  timezone: string
  /** Target time in seconds (> 0): counts the orders over it. */
  targetTime: number
  range: HourlyRange
}

export interface HourFigures {
  /** Hour of the day, 0-23, in the gateway's timezone. */
  hour: number
  /** Orders cleared in that hour (summed over the days of the range). */
  orders: number
  /** Start-to-clear seconds, one decimal; null when no order. */
  medianSeconds: number | null
  p90Seconds: number | null
  overTarget: number
}

export interface HourlyStatistics {
  range: HourlyRange
  /** First and last instant covered (epoch ms; `to` exclusive). */
  from: number
  to: number
  days: number
  targetTime: number
  hours: HourFigures[]
}
