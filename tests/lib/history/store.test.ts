import path from 'node:path'
import t from 'tap'
import { HistoryQueries, type HistoryFilter } from '../../../lib/history/query.ts'
import { HistoryStore } from '../../../lib/history/store.ts'
import { summary, uuidOf } from './fixtures.ts'

t.test('insert is idempotent on uuid; has and get find the summary', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  const first = summary(1, { orderLocated: Date.parse('2026-11-22T10:02:00Z'), locationName: 4 })
  t.equal(store.insert(first), true)
  t.equal(store.insert({ ...first, name: 50 }), false, 'a second insert of the same uuid is ignored')
  t.equal(store.has(first.uuid), true)
  t.equal(store.has(uuidOf(2)), false)
  t.same(store.get(first.uuid), first, 'the first insert wins, every field kept')
  t.equal(store.get(uuidOf(2)), undefined)
})

t.test('insertMany commits a batch at once and counts only the new ones', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  store.insert(summary(1))
  t.equal(store.insertMany([summary(1), summary(2), summary(3), summary(2)]), 2)
  t.equal(store.list({}, { offset: 0, limit: 10 }).count, 3)
})

t.test('insertMany rolls the whole batch back on a failure', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  const broken = { ...summary(3), orderType: null } as unknown as ReturnType<typeof summary>
  t.throws(() => store.insertMany([summary(1), summary(2), broken]))
  t.equal(store.list({}, { offset: 0, limit: 10 }).count, 0, 'nothing from the failed batch stays')
  t.equal(store.db.isTransaction, false)
})

t.test('the unfiltered count stays exact across duplicates, refused rows and rolled-back batches', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  store.insert(summary(1))
  store.insert(summary(1))
  t.throws(() => store.insert({ ...summary(2), orderType: 'DELIVERY' as 'TO_GO' }))
  t.throws(() => store.insertMany([summary(3), { ...summary(4), name: null as unknown as number }]))
  store.insertMany([summary(1), summary(5)])
  const counted = (store.db.prepare('SELECT count(*) AS n FROM summaries').get() as { n: number }).n
  t.equal(counted, 2)
  t.equal(store.list({}, { offset: 0, limit: 10 }).count, 2)
  t.equal(store.list({}, { offset: 0, limit: 10 }).asOf, 2, 'positions have no gaps')
})

t.test('rows deleted by hand are accounted for when the store opens', async (t) => {
  const file = path.join(t.testdir(), 'history.sqlite')
  const before = new HistoryStore(file)
  before.insertMany([summary(1), summary(2), summary(3)])
  before.db.exec(`DELETE FROM summaries WHERE uuid = '${uuidOf(2)}'`)
  before.close()
  const after = new HistoryStore(file)
  t.teardown(() => after.close())
  t.equal(after.list({}, { offset: 0, limit: 10 }).count, 2)
})

t.test('the unfiltered count follows inserts made by another connection (import beside a running gateway)', async (t) => {
  const file = path.join(t.testdir(), 'history.sqlite')
  const gateway = new HistoryStore(file)
  const importer = new HistoryStore(file)
  t.teardown(() => {
    gateway.close()
    importer.close()
  })
  gateway.insert(summary(1))
  importer.insertMany([summary(2), summary(3)])
  const page = gateway.list({}, { offset: 0, limit: 10 })
  t.equal(page.count, 3)
  t.same(
    page.items.map((s) => s.uuid),
    [uuidOf(3), uuidOf(2), uuidOf(1)],
  )
})

t.test('reopening keeps summaries, the count and the insertion positions', async (t) => {
  const file = path.join(t.testdir(), 'history.sqlite')
  const before = new HistoryStore(file)
  before.insertMany([summary(1), summary(2)])
  const asOf = before.list({}, { offset: 0, limit: 1 }).asOf
  before.close()
  const after = new HistoryStore(file)
  t.teardown(() => after.close())
  t.equal(after.list({}, { offset: 0, limit: 1 }).count, 2)
  after.insert(summary(3))
  t.equal(after.list({}, { offset: 0, limit: 10, asOf }).count, 2, 'positions continue after the old ones')
})

t.test('the database is in WAL mode with the configured synchronous level', async (t) => {
  const file = path.join(t.testdir(), 'history.sqlite')
  const store = new HistoryStore(file, { synchronous: 'NORMAL' })
  t.teardown(() => store.close())
  t.equal((store.db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode, 'wal')
  t.equal((store.db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous, 1)
  const full = new HistoryStore(path.join(t.testdir(), 'full.sqlite'))
  t.teardown(() => full.close())
  t.equal((full.db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous, 2, 'FULL by default')
})

t.test('a refused summary throws instead of passing for a duplicate', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  t.throws(() => store.insert({ ...summary(1), orderType: 'DELIVERY' as 'TO_GO' }), /CHECK constraint/)
  t.equal(store.has(uuidOf(1)), false)
})

t.test('every list and statistics query is an index walk, never a scan or a sort', async (t) => {
  const store = new HistoryStore(':memory:')
  t.teardown(() => store.close())
  const queries = new HistoryQueries(store.db)
  const day = { createdAfter: 1, createdBefore: 2 }
  const filters: [string, HistoryFilter, RegExp][] = [
    ['unfiltered', {}, /summaries_started/],
    ['order type', { orderType: 'TO_GO' }, /summaries_type_started/],
    ['location', { locationName: 3 }, /summaries_location_started/],
    ['order type + location', { orderType: 'TO_GO', locationName: 3 }, /summaries_location_type_started/],
    ['dates', day, /summaries_started/],
    ['order type + dates', { orderType: 'TO_GO', ...day }, /summaries_type_started/],
    ['location + dates', { locationName: 3, ...day }, /summaries_location_started/],
    // Without statistics SQLite may pick either location index here; both walk without a sort.
    ['everything', { orderType: 'ON_PREMISE', locationName: 3, ...day }, /summaries_location_(type_)?started/],
  ]
  for (const [name, filter, index] of filters) {
    const plan = queries.explain(filter)
    t.notMatch(plan.page, /TEMP B-TREE/, `${name}: page needs no sort (${plan.page})`)
    t.match(plan.page, index, `${name}: page walks ${index}`)
    t.notMatch(plan.count, /SCAN summaries(?! USING)/, `${name}: count uses an index (${plan.count})`)
  }
  const stats = (
    store.db
      .prepare('EXPLAIN QUERY PLAN SELECT count(*), sum(orderCleared - orderStarted) FROM summaries WHERE orderCleared >= ? AND orderCleared < ?')
      .all(1, 2) as { detail: string }[]
  )
    .map((row) => row.detail)
    .join('; ')
  t.match(stats, /COVERING INDEX summaries_cleared/)
})
