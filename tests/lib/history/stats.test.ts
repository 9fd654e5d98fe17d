import t from 'tap'
import { HistoryStore } from '../../../lib/history/store.ts'
import { summary } from './fixtures.ts'

const at = (iso: string) => Date.parse(iso)

function cleared(n: number, startedIso: string, seconds: number) {
  const orderStarted = at(startedIso)
  return summary(n, { orderStarted, orderCleared: orderStarted + seconds * 1000 })
}

t.test('no orders cleared today: zeros, with the target echoed', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  store.insert(cleared(1, '2026-11-21T12:00:00Z', 100))
  t.same(store.statistics({ now: at('2026-11-22T12:00:00Z'), timezone: 'UTC', targetTime: 300 }), {
    ordersToday: 0,
    averageSeconds: 0,
    exceededToday: 0,
    percentGoal: 0,
    targetTime: 300,
  })
})

t.test('counts orders cleared today, timed start to clear, against the target', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  store.insertMany([
    cleared(1, '2026-11-22T08:00:00Z', 100),
    cleared(2, '2026-11-22T09:00:00Z', 300), // exactly the target: within
    cleared(3, '2026-11-22T10:00:00Z', 301), // longer: exceeded
    cleared(4, '2026-11-21T23:55:00Z', 600), // started yesterday, cleared today: counts
    cleared(5, '2026-11-21T23:00:00Z', 120), // cleared yesterday: not today
  ])
  t.same(store.statistics({ now: at('2026-11-22T12:00:00Z'), timezone: 'UTC', targetTime: 300 }), {
    ordersToday: 4,
    averageSeconds: 325.3, // (100 + 300 + 301 + 600) / 4 = 325.25
    exceededToday: 2,
    percentGoal: 50,
    targetTime: 300,
  })
  const lenient = store.statistics({ now: at('2026-11-22T12:00:00Z'), timezone: 'UTC', targetTime: 600 })
  t.equal(lenient.exceededToday, 0)
  t.equal(lenient.percentGoal, 100)
})

t.test('percentGoal rounds down to one decimal, so 100 means none exceeded', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  store.insertMany(Array.from({ length: 1000 }, (_, i) => cleared(i, '2026-11-22T08:00:00Z', i === 0 ? 900 : 60)))
  const figures = store.statistics({ now: at('2026-11-22T12:00:00Z'), timezone: 'UTC', targetTime: 300 })
  t.equal(figures.exceededToday, 1)
  t.equal(figures.percentGoal, 99.9)
})

t.test('today follows the timezone: its midnight is inclusive, the next one exclusive', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  store.insertMany([
    cleared(1, '2026-11-21T22:50:00Z', 600), // cleared 23:00Z = 00:00 in +01:00
    cleared(2, '2026-11-22T22:50:00Z', 600), // cleared 23:00Z: next day in +01:00
  ])
  const now = at('2026-11-22T12:00:00Z')
  t.equal(store.statistics({ now, timezone: '+01:00', targetTime: 300 }).ordersToday, 1)
  t.equal(store.statistics({ now, timezone: 'UTC', targetTime: 300 }).ordersToday, 1)
  t.equal(store.statistics({ now, timezone: 'Europe/Berlin', targetTime: 300 }).ordersToday, 1)
  t.equal(store.statistics({ now: at('2026-11-22T23:30:00Z'), timezone: 'UTC', targetTime: 300 }).ordersToday, 1)
  t.equal(store.statistics({ now: at('2026-11-22T23:30:00Z'), timezone: '+01:00', targetTime: 300 }).ordersToday, 1, 'the 23:00Z clear is tomorrow in +01:00')
})

t.test('a row that ends before it starts (written before provenance was kept) counts as no time, never negative', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  store.insertMany([cleared(1, '2026-11-22T08:00:00Z', 100), cleared(2, '2026-11-23T08:00:00Z', -86_318)])
  const statistics = store.statistics({ now: at('2026-11-22T12:00:00Z'), timezone: 'UTC', targetTime: 300 })
  t.match(statistics, { ordersToday: 2, averageSeconds: 50, exceededToday: 0 })
  const hourly = store.hourly({ now: at('2026-11-22T12:00:00Z'), timezone: 'UTC', targetTime: 300, range: 'day' })
  t.notOk(JSON.stringify(hourly).includes('-'), 'no negative figure per hour')
})
