// CSV for HQ's exports (RFC 4180: comma-separated, CRLF lines, fields with a comma, quote or line break
// quoted, quotes doubled): a site's history and alerts, the statistics. A text cell that a spreadsheet would take for a
// formula (=, +, -, @ first) is prefixed with ' so opening the file runs nothing.
import type { Statistics } from './queries.ts'

export type Cell = string | number | boolean | null

const formula = /^[=+\-@\t\r]/

function field(value: Cell): string {
  if (value === null) return ''
  if (typeof value !== 'string') return String(value)
  const text = formula.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** A header line and one line per row, in the columns' order. */
export function toCsv<Row extends Record<string, Cell>>(columns: (keyof Row & string)[], rows: Row[]): string {
  return [columns.map(field).join(','), ...rows.map((row) => columns.map((column) => field(row[column] ?? null)).join(','))]
    .map((line) => `${line}\r\n`)
    .join('')
}

export const csvContentType = 'text/csv; charset=utf-8'

/** One line per figure: the period's total, then each day, each hour of the day, each site. */
export function statisticsCsv(stats: Statistics): string {
  const line = (figure: string, key: string | number, f: { orders: number; located: number; averageToTableSeconds: number | null; late: number }) => ({
    period: stats.period,
    from: stats.from,
    to: stats.to,
    site: stats.site,
    figure,
    key: String(key),
    orders: f.orders,
    located: f.located,
    averageToTableSeconds: f.averageToTableSeconds,
    late: f.late,
    targetSeconds: stats.targetSeconds,
  })
  const rows = [
    line('total', '', stats),
    ...stats.days.map((day) => line('day', day.day, day)),
    ...stats.hours.map((hour) => line('hour', hour.hour, hour)),
    ...stats.sites.map((site) => line('site', site.siteId, site)),
  ]
  return toCsv(['period', 'from', 'to', 'site', 'figure', 'key', 'orders', 'located', 'averageToTableSeconds', 'late', 'targetSeconds'], rows)
}
