import t from 'tap'
import { orderSummary } from '../../../lib/api/present-order.ts'
import { HistoryPages } from '../../../lib/api/history-pages.ts'
import type { HistoryFilter } from '../../../lib/history/query.ts'
import { HistoryStore } from '../../../lib/history/store.ts'
import { summary } from '../history/fixtures.ts'

function countingStore(store: HistoryStore) {
  let lists = 0
  return {
    get lists() {
      return lists
    },
    highWater: () => store.highWater(),
    list: (...args: Parameters<HistoryStore['list']>) => {
      lists++
      return store.list(...args)
    },
  }
}

/** A page cache with `budget` bytes over summaries 1..rows; `counting.lists` counts store reads. */
function cacheOver(rows: number, budget: number) {
  const store = new HistoryStore(':memory:')
  for (let n = 1; n <= rows; n++) store.insert(summary(n))
  const counting = countingStore(store)
  const pages = new HistoryPages(counting, budget)
  return { counting, ask: (filter: HistoryFilter, offset = 0) => pages.presented(filter, { offset, limit: 5 }, 'UTC') }
}

t.test('a page is presented as the store reads it, then answered from memory until history grows', async (t) => {
  const store = new HistoryStore(':memory:')
  for (let n = 1; n <= 30; n++) store.insert(summary(n))
  const counting = countingStore(store)
  const pages = new HistoryPages(counting)
  const first = pages.presented({}, { offset: 0, limit: 5 }, 'Europe/Berlin')
  const expected = store.list({}, { offset: 0, limit: 5 })
  t.same(
    JSON.parse(first.items.text),
    expected.items.map((s) => orderSummary(s, 'Europe/Berlin')),
  )
  t.equal(first.count, 30)
  t.equal(first.asOf, 30)
  t.equal(pages.presented({}, { offset: 0, limit: 5 }, 'Europe/Berlin'), first, 'the same page again: from memory')
  t.equal(counting.lists, 1)

  store.insert(summary(31))
  const grown = pages.presented({}, { offset: 0, limit: 5 }, 'Europe/Berlin')
  t.equal(counting.lists, 2, 'a new summary: read again')
  t.equal(grown.count, 31)
  t.equal(JSON.parse(grown.items.text)[0].uuid, summary(31).uuid)
  t.equal(pages.presented({}, { offset: 0, limit: 5, asOf: 30 }, 'Europe/Berlin'), first, 'an older snapshot asked for by asOf: still the kept page')
  t.equal(counting.lists, 2)
})

t.test('everything that changes an answer is part of the key', async (t) => {
  const store = new HistoryStore(':memory:')
  for (let n = 1; n <= 30; n++) store.insert(summary(n))
  const counting = countingStore(store)
  const pages = new HistoryPages(counting)
  const base = { offset: 0, limit: 5 }
  const asOfFirst = pages.presented({}, { ...base, asOf: 30 }, 'UTC')
  t.equal(pages.presented({}, base, 'UTC'), asOfFirst, 'asOf equal to the newest position is the same snapshot')
  const variants = [
    pages.presented({}, base, '+05:00'),
    pages.presented({}, { ...base, offset: 1 }, 'UTC'),
    pages.presented({}, { ...base, limit: 6 }, 'UTC'),
    pages.presented({}, { ...base, asOf: 20 }, 'UTC'),
    pages.presented({ orderType: 'TO_GO' }, base, 'UTC'),
    pages.presented({ locationName: 2 }, base, 'UTC'),
    pages.presented({ createdAfter: summary(10).orderStarted }, base, 'UTC'),
    pages.presented({ createdBefore: summary(10).orderStarted }, base, 'UTC'),
  ]
  t.equal(counting.lists, 1 + variants.length, 'each variant read from the store')
  t.equal(new Set(variants.map((page) => page.items.text)).size, variants.length, 'and each answers differently')
})

t.test('the memory held is bounded; the least recently used pages go first', async (t) => {
  const store = new HistoryStore(':memory:')
  for (let n = 1; n <= 30; n++) store.insert(summary(n))
  const counting = countingStore(store)
  // A page costs its JSON three times (the list, the answer framed around it and its
  // bytes) and a little for its key and objects: room for two, not three.
  const onePage = new HistoryPages(store).presented({}, { offset: 0, limit: 5 }, 'UTC').items.text.length * 3
  const pages = new HistoryPages(counting, onePage * 2.5)
  pages.presented({}, { offset: 0, limit: 5 }, 'UTC')
  pages.presented({}, { offset: 5, limit: 5 }, 'UTC')
  pages.presented({}, { offset: 0, limit: 5 }, 'UTC') // used again: now the newest
  pages.presented({}, { offset: 10, limit: 5 }, 'UTC') // evicts offset 5
  t.equal(counting.lists, 3)
  pages.presented({}, { offset: 0, limit: 5 }, 'UTC')
  t.equal(counting.lists, 3, 'offset 0 was kept')
  pages.presented({}, { offset: 5, limit: 5 }, 'UTC')
  t.equal(counting.lists, 4, 'offset 5 was evicted')
})

t.test('a page larger than the whole budget is still kept, alone', async (t) => {
  const { counting, ask } = cacheOver(10, 10)
  ask({}, 0)
  ask({}, 5) // evicts offset 0
  ask({}, 5)
  t.equal(counting.lists, 2, 'the newest page answers again from memory')
  ask({}, 0)
  t.equal(counting.lists, 3, 'the one before it was let go')
})

t.test('empty pages count too: many different filters cannot fill memory with keys', async (t) => {
  const { counting, ask } = cacheOver(1, 10_000)
  for (let location = 100; location < 300; location++) ask({ locationName: location })
  t.equal(counting.lists, 200)
  ask({ locationName: 299 })
  t.equal(counting.lists, 200, 'the newest empty page is kept')
  ask({ locationName: 100 })
  t.equal(counting.lists, 201, 'the oldest was let go: each costs its key and objects, not just "[]"')
})

t.test('a budget of 0 keeps nothing', async (t) => {
  const { counting, ask } = cacheOver(1, 0)
  ask({})
  ask({})
  t.equal(counting.lists, 2)
})

t.test('asking for the same page again and again, then another, then the first (issue 30)', async (t) => {
  const { counting, ask } = cacheOver(30, 1_000_000)
  const first = ask({})
  t.equal(ask({}), first)
  t.equal(ask({}), first)
  const second = ask({}, 5)
  t.not(second, first, 'another offset: another page')
  t.not(ask({ locationName: 3 }), first, 'a filter: another page')
  t.equal(ask({}), first, 'the first again')
  t.equal(counting.lists, 3)
})
