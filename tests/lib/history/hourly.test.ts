import t from 'tap'
import { HistoryStore } from '../../../lib/history/store.ts'
import { percentile } from '../../../lib/history/hourly.ts'
import { summary } from './fixtures.ts'

const at = (iso: string) => Date.parse(iso)
const cleared = (n: number, clearedIso: string, seconds: number) => summary(n, { orderStarted: at(clearedIso) - seconds * 1000, orderCleared: at(clearedIso) })

t.test('today hour by hour: orders, median, p90 and over target, in the gateway timezone', async (t) => {
  const history = new HistoryStore(':memory:')
  t.teardown(() => history.close())
  // Tokyo is UTC+9: 03:xx UTC is 12:xx local.
  const lunch = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000].map((s, i) => cleared(i + 1, `2026-11-22T03:${String(10 + i).padStart(2, '0')}:00Z`, s))
  history.insertMany([...lunch, cleared(20, '2026-11-22T10:30:00Z', 120), cleared(21, '2026-11-21T03:30:00Z', 60)])
  const day = history.hourly({ now: at('2026-11-22T11:00:00Z'), timezone: 'Asia/Tokyo', targetTime: 300, range: 'day' })
  t.equal(day.hours.length, 24)
  t.same(day.hours[12], { hour: 12, orders: 10, medianSeconds: 500, p90Seconds: 900, overTarget: 7 })
  t.same(day.hours[19], { hour: 19, orders: 1, medianSeconds: 120, p90Seconds: 120, overTarget: 0 })
  t.same(day.hours[8], { hour: 8, orders: 0, medianSeconds: null, p90Seconds: null, overTarget: 0 })
  t.equal(
    day.hours.reduce((n, h) => n + h.orders, 0),
    11,
    "yesterday's order is not today's",
  )
  t.equal(day.from, at('2026-11-21T15:00:00Z'), 'the day begins at midnight in Tokyo')

  const week = history.hourly({ now: at('2026-11-22T11:00:00Z'), timezone: 'Asia/Tokyo', targetTime: 300, range: 'week' })
  t.equal(week.days, 7)
  t.equal(week.from, at('2026-11-15T15:00:00Z'))
  t.equal(week.hours[12]!.orders, 11, "the week's 12:00 hour sums both days")
})

t.test('a week across a DST change still starts at local midnight', async (t) => {
  const history = new HistoryStore(':memory:')
  t.teardown(() => history.close())
  // Europe/Berlin left summer time on 2026-10-25.
  const week = history.hourly({ now: at('2026-10-28T12:00:00Z'), timezone: 'Europe/Berlin', targetTime: 300, range: 'week' })
  t.equal(week.from, at('2026-10-21T22:00:00Z'), 'midnight CEST, seven days back')
})

t.test('percentile: nearest rank', async (t) => {
  t.equal(percentile([], 0.5), null)
  t.equal(percentile([7], 0.9), 7)
  t.equal(percentile([1, 2, 3, 4], 0.5), 2)
  t.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9)
})
