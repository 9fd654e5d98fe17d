import fc from 'fast-check'
import t from 'tap'
import type { HistoryFilter } from '../../../lib/history/query.ts'
import { HistoryStore } from '../../../lib/history/store.ts'
import type { OrderSummary } from '../../../lib/orders/types.ts'
import { summary, uuidOf } from './fixtures.ts'

const T0 = Date.parse('2026-11-22T10:00:00Z')
const minute = 60_000

function storeWith(summaries: OrderSummary[]): HistoryStore {
  const store = new HistoryStore(':memory:')
  store.insertMany(summaries)
  return store
}

const uuids = (items: OrderSummary[]) => items.map((s) => s.uuid)

t.test('newest first by orderStarted, ties broken by uuid (descending)', async (t) => {
  const store = storeWith([
    summary(1, { orderStarted: T0 }),
    summary(3, { orderStarted: T0 + minute }),
    summary(2, { orderStarted: T0 + minute }),
    summary(4, { orderStarted: T0 - minute }),
  ])
  t.teardown(() => store.close())
  t.same(uuids(store.list({}, { offset: 0, limit: 10 }).items), [uuidOf(3), uuidOf(2), uuidOf(1), uuidOf(4)])
})

t.test('offset and limit page over that order; count is every match, not the page size', async (t) => {
  const store = storeWith(Array.from({ length: 30 }, (_, i) => summary(i)))
  t.teardown(() => store.close())
  const page = store.list({}, { offset: 5, limit: 10 })
  t.equal(page.count, 30)
  t.same(
    uuids(page.items),
    Array.from({ length: 10 }, (_, i) => uuidOf(24 - i)),
  )
  const beyond = store.list({}, { offset: 40, limit: 10 })
  t.same(beyond, { count: 30, items: [], asOf: 30 })
})

t.test('each filter narrows the list and its count', async (t) => {
  const store = storeWith([
    summary(1, { orderStarted: T0, orderType: 'TO_GO', locationName: 5 }),
    summary(2, { orderStarted: T0 + minute, orderType: 'ON_PREMISE', locationName: 5 }),
    summary(3, { orderStarted: T0 + 2 * minute, orderType: 'TO_GO', locationName: null }),
    summary(4, { orderStarted: T0 + 3 * minute, orderType: 'TO_GO', locationName: 15 }),
  ])
  t.teardown(() => store.close())
  const list = (filter: HistoryFilter) => {
    const page = store.list(filter, { offset: 0, limit: 10 })
    return { count: page.count, uuids: uuids(page.items) }
  }
  t.same(list({ orderType: 'TO_GO' }), { count: 3, uuids: [uuidOf(4), uuidOf(3), uuidOf(1)] })
  t.same(list({ orderType: 'ON_PREMISE' }), { count: 1, uuids: [uuidOf(2)] })
  t.same(list({ locationName: 5 }), { count: 2, uuids: [uuidOf(2), uuidOf(1)] }, 'exact location, not 15')
  t.same(list({ orderType: 'TO_GO', locationName: 5 }), { count: 1, uuids: [uuidOf(1)] })
  t.same(list({ createdAfter: T0 + minute }), { count: 3, uuids: [uuidOf(4), uuidOf(3), uuidOf(2)] }, 'created_after inclusive')
  t.same(list({ createdBefore: T0 + 2 * minute }), { count: 2, uuids: [uuidOf(2), uuidOf(1)] }, 'created_before exclusive')
  t.same(list({ createdAfter: T0 + minute, createdBefore: T0 + 3 * minute }), { count: 2, uuids: [uuidOf(3), uuidOf(2)] })
  t.same(list({ createdAfter: T0 + 3 * minute, createdBefore: T0 }), { count: 0, uuids: [] }, 'an empty window is empty, not an error')
})

t.test('asOf leaves out summaries inserted after it, in the page and in the count', async (t) => {
  const store = storeWith([summary(1), summary(2)])
  t.teardown(() => store.close())
  const first = store.list({}, { offset: 0, limit: 1 })
  t.equal(first.asOf, 2)
  store.insert(summary(9))
  const second = store.list({}, { offset: 1, limit: 1, asOf: first.asOf })
  t.same(uuids(second.items), [uuidOf(1)], 'the new (newest) summary does not shift the page')
  t.equal(second.count, 2)
  t.equal(second.asOf, 2)
  t.equal(store.list({ orderType: 'TO_GO' }, { offset: 0, limit: 5, asOf: 2 }).count, 1, 'filtered count honours asOf too')
  t.equal(store.list({}, { offset: 0, limit: 5, asOf: 1000 }).asOf, 3, 'an asOf beyond the history is clamped to it')
  t.equal(store.list({}, { offset: 0, limit: 5, asOf: 0 }).count, 0)
})

// ---- property tests against a brute-force model -------------------------------------------

const times = fc.integer({ min: 0, max: 12 }).map((i) => T0 + i * 10 * minute) // few values: many ties
type RawSummary = Omit<OrderSummary, 'orderLocated' | 'orderCleared'>
const summaryArb: fc.Arbitrary<RawSummary> = fc.record({
  uuid: fc.uuid({ version: 4 }),
  name: fc.integer({ min: 1, max: 50 }),
  orderType: fc.constantFrom('TO_GO' as const, 'ON_PREMISE' as const),
  locationName: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  orderStarted: times,
})
const toSummary = (s: RawSummary): OrderSummary => ({
  ...s,
  orderLocated: null,
  orderCleared: s.orderStarted + 5 * minute,
})
const filterArb: fc.Arbitrary<HistoryFilter> = fc.record(
  {
    orderType: fc.constantFrom('TO_GO' as const, 'ON_PREMISE' as const),
    locationName: fc.integer({ min: 1, max: 3 }),
    createdAfter: times,
    createdBefore: times,
  },
  { requiredKeys: [] },
)

function model(all: OrderSummary[], filter: HistoryFilter): OrderSummary[] {
  return all
    .filter(
      (s) =>
        (filter.orderType === undefined || s.orderType === filter.orderType) &&
        (filter.locationName === undefined || s.locationName === filter.locationName) &&
        (filter.createdAfter === undefined || s.orderStarted >= filter.createdAfter) &&
        (filter.createdBefore === undefined || s.orderStarted < filter.createdBefore),
    )
    .sort((a, b) => b.orderStarted - a.orderStarted || (a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0))
}

const distinct = (items: RawSummary[]) => [...new Map(items.map((s) => [s.uuid, toSummary(s)])).values()]

t.test('property: any page equals the brute-force model (filters, offset, limit, count)', async (t) => {
  fc.assert(
    fc.property(
      fc.array(summaryArb, { maxLength: 60 }),
      filterArb,
      fc.integer({ min: 0, max: 70 }),
      fc.integer({ min: 1, max: 100 }),
      (items, filter, offset, limit) => {
        const all = distinct(items)
        const store = storeWith(all)
        try {
          const expected = model(all, filter)
          const page = store.list(filter, { offset, limit })
          return page.count === expected.length && JSON.stringify(page.items) === JSON.stringify(expected.slice(offset, offset + limit))
        } finally {
          store.close()
        }
      },
    ),
    { numRuns: 300 },
  )
  t.pass('300 runs')
})

// Orders are cleared into history while a client walks the pages. With the first page's
// asOf passed back, the walk returns exactly the history as it was at the first page: no
// duplicates, no holes. Without it (a legacy client), new summaries may repeat an item at
// a page boundary, but no summary that existed at the first page is ever skipped.
const walkArb = fc.record({
  initial: fc.array(summaryArb, { maxLength: 50 }),
  filter: filterArb,
  limit: fc.integer({ min: 1, max: 8 }),
  clearedBetweenPages: fc.array(fc.array(summaryArb, { maxLength: 6 }), { maxLength: 12 }),
})

function walk(store: HistoryStore, filter: HistoryFilter, limit: number, between: (i: number) => void, snapshot: boolean) {
  const seen: OrderSummary[] = []
  let asOf: number | undefined
  for (let pageNumber = 0; ; pageNumber++) {
    if (pageNumber > 0) between(pageNumber - 1)
    const page = store.list(filter, snapshot && asOf !== undefined ? { offset: seen.length, limit, asOf } : { offset: pageNumber * limit, limit })
    asOf ??= page.asOf
    seen.push(...page.items)
    if (page.items.length < limit) return seen
  }
}

t.test('property: with asOf, paging while orders are cleared has no duplicates and no holes', async (t) => {
  fc.assert(
    fc.property(walkArb, ({ initial, filter, limit, clearedBetweenPages }) => {
      const all = distinct(initial)
      const store = storeWith(all)
      try {
        const expected = model(all, filter)
        const seen = walk(store, filter, limit, (i) => store.insertMany((clearedBetweenPages[i] ?? []).map(toSummary)), true)
        return JSON.stringify(uuids(seen)) === JSON.stringify(uuids(expected))
      } finally {
        store.close()
      }
    }),
    { numRuns: 300 },
  )
  t.pass('300 runs')
})

t.test('property: without asOf, no summary present at the first page is skipped', async (t) => {
  fc.assert(
    fc.property(walkArb, ({ initial, filter, limit, clearedBetweenPages }) => {
      const all = distinct(initial)
      const store = storeWith(all)
      try {
        const expected = model(all, filter)
        const seen = new Set(uuids(walk(store, filter, limit, (i) => store.insertMany((clearedBetweenPages[i] ?? []).map(toSummary)), false)))
        return expected.every((s) => seen.has(s.uuid))
      } finally {
        store.close()
      }
    }),
    { numRuns: 300 },
  )
  t.pass('300 runs')
})

t.test('without asOf an order cleared between pages can repeat an item: the reason asOf exists', async (t) => {
  const store = storeWith([summary(1), summary(2), summary(3)])
  t.teardown(() => store.close())
  const first = store.list({}, { offset: 0, limit: 2 })
  store.insert(summary(10))
  t.same(uuids(store.list({}, { offset: 2, limit: 2 }).items), [uuidOf(2), uuidOf(1)], 'uuidOf(2) again')
  t.same(uuids(store.list({}, { offset: 2, limit: 2, asOf: first.asOf }).items), [uuidOf(1)])
})
