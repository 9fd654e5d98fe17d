// Gap detection (lib/hq/chain.ts) through the batch apply, against a real PostgreSQL: spans
// (prevSeq, seq] arriving in any order, split over batches, duplicated, move chain_seq up to
// the first hole and no further; a clearing counts with its summary only; seqs need not be
// dense; a status saying more was published is a gap too; older gateways are not followed.
import t from 'tap'
import { SimulatedSite, type SiteMessageOut } from '../../../bench/hq-sites.ts'
import { applyBatch } from '../../../lib/hq/apply.ts'
import { advanceChain, batchSpans, formatRanges, minus, normalize, parseRanges, PendingChains, storeChains, union } from '../../../lib/hq/chain.ts'
import { parseSiteMessage, type SiteMessage } from '../../../lib/hq/messages.ts'
import { Partitions } from '../../../lib/hq/schema.ts'
import type { Database } from '../../../lib/store/postgres.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { freshDatabase, prefix } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

const parsed = (messages: SiteMessageOut[]): SiteMessage[] =>
  messages.map((m) => {
    const result = parseSiteMessage(prefix, m.topic, m.payload)
    if (!result.ok) throw new Error(result.reason)
    return result.message
  })

async function apply(db: Database, messages: SiteMessageOut[]) {
  const list = parsed(messages)
  await new Partitions().ensure(
    db,
    list.flatMap((m) => (m.kind === 'history' ? [Date.parse(m.orderCleared)] : [])),
  )
  await db.transaction((tx) => applyBatch(tx, list, { timezoneOf: () => 'UTC', targetSeconds: 600 }))
  // What an instance does after its commits (Ingest.storeChains).
  const pending = new PendingChains()
  pending.add(list)
  await db.transaction((tx) => storeChains(tx, pending.take()))
}

async function chain(db: Database, siteId: string) {
  const { rows } = await db.query<{ chain_seq: string | null; gap: boolean; events: string }>(
    'SELECT chain_seq, gap_since IS NOT NULL AS gap, chain_events AS events FROM hq_site_chains WHERE site_id = $1',
    [siteId],
  )
  const row = rows[0]!
  return { seq: row.chain_seq === null ? null : Number(row.chain_seq), gap: row.gap, events: row.events }
}

function orders(site: SimulatedSite, count: number, from = Date.parse('2026-11-25T11:00:00Z')): SiteMessageOut[] {
  return Array.from({ length: count }, (_, i) => site.fullOrder(from + i * 60_000, 60, 120)).flat()
}

/** A deterministic shuffle (the same on every run). */
function shuffled<T>(items: T[], seed = 7): T[] {
  const out = [...items]
  let state = seed
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31
    const j = state % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

t.test('spans in any order, in batches, with duplicates: the chain reaches the last change', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const site = new SimulatedSite('any-order', { prefix })
  const messages = orders(site, 12)
  const mixed = shuffled([...messages, ...messages.slice(5, 20)])
  for (let i = 0; i < mixed.length; i += 7) await apply(db, mixed.slice(i, i + 7))
  t.same(await chain(db, 'any-order'), { seq: 36, gap: false, events: '{}' }, 'whole, nothing kept above it')
})

t.test('a hole stops the chain and is a gap until it is filled', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const site = new SimulatedSite('holed', { prefix })
  const messages = orders(site, 6)
  const missing = messages.filter((m) => m.seq >= 7 && m.seq <= 8)
  await apply(
    db,
    messages.filter((m) => !missing.includes(m)),
  )
  t.same(await chain(db, 'holed'), { seq: 6, gap: true, events: '{[9,18]}' }, 'up to the hole; what came after is kept as one range')
  await apply(db, missing)
  t.same(await chain(db, 'holed'), { seq: 18, gap: false, events: '{}' })
})

t.test('a clearing is whole with its summary only', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const site = new SimulatedSite('cleared', { prefix })
  const messages = orders(site, 3)
  const summary = messages.find((m) => m.seq === 6 && m.topic.endsWith('/history'))!
  await apply(
    db,
    messages.filter((m) => m !== summary),
  )
  t.match(await chain(db, 'cleared'), { seq: 5, gap: true })
  // The summary alone (its change already here) completes it; a summary before its change is a gap too.
  await apply(db, [summary])
  t.match(await chain(db, 'cleared'), { seq: 9, gap: false })
  const later = orders(site, 1, Date.parse('2026-11-25T13:00:00Z'))
  await apply(
    db,
    later.filter((m) => m.topic.endsWith('/history')),
  )
  t.match(await chain(db, 'cleared'), { seq: 9, gap: true })
  await apply(
    db,
    later.filter((m) => m.topic.endsWith('/events')),
  )
  t.match(await chain(db, 'cleared'), { seq: 12, gap: false })
})

t.test('seqs need not be dense: the spans say what lies between', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const site = new SimulatedSite('sparse', { prefix })
  const first = orders(site, 2)
  site.seq += 1000 // a crash skipped the rest of a block
  const second = orders(site, 2)
  await apply(db, shuffled([...second, ...first]))
  t.same(await chain(db, 'sparse'), { seq: site.seq, gap: false, events: '{}' })
  // A restored box jumps far ahead, naming a change below what HQ has: it links all the same.
  const restored = new SimulatedSite('sparse', { prefix, firstSeq: 5 })
  restored.seq = 1_000_000
  await apply(db, orders(restored, 1))
  t.same(await chain(db, 'sparse'), { seq: 1_000_003, gap: false, events: '{}' })
})

t.test('a status saying more was published is a gap; older gateways are not followed', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const site = new SimulatedSite('tail', { prefix })
  const messages = orders(site, 3)
  await apply(
    db,
    messages.filter((m) => m.seq <= 6),
  )
  t.match(await chain(db, 'tail'), { seq: 6, gap: false })
  await apply(db, [site.status(true)])
  t.match(await chain(db, 'tail'), { seq: 6, gap: true }, 'the status says 9 were published')
  await apply(
    db,
    messages.filter((m) => m.seq > 6),
  )
  t.match(await chain(db, 'tail'), { seq: 9, gap: false })

  const old = new SimulatedSite('old-gateway', { prefix })
  const withoutPrev = orders(old, 2).map((m) => {
    const body = JSON.parse(m.payload)
    delete body.prevSeq
    return { ...m, payload: JSON.stringify(body) }
  })
  await apply(db, [...withoutPrev.slice(0, 2), old.status(true)])
  t.same(await chain(db, 'old-gateway'), { seq: null, gap: false, events: '{}' }, 'no prevSeq: nothing to follow')
})

t.test('the first message seen starts the chain; out-of-order records are applied, not followed', async (t) => {
  const site = new SimulatedSite('late-start', { prefix, firstSeq: 500 })
  const spans = batchSpans(parsed(orders(site, 1)))
  t.same(spans.get('late-start'), {
    events: [
      [501, 501],
      [502, 502],
      [503, 503],
    ],
    cleared: [[503, 503]],
    history: [[503, 503]],
    firstPrev: 500,
  })
  const odd = parsed(orders(new SimulatedSite('odd', { prefix }), 1)).map((m) => (m.kind === 'status' ? m : { ...m, prevSeq: m.seq + 5 }))
  t.equal(batchSpans(odd).size, 0)
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  await apply(db, orders(site, 1))
  t.same(await chain(db, 'late-start'), { seq: 506, gap: false, events: '{}' }, 'from the prevSeq of the first message HQ sees')
})

t.test('range arithmetic: merge, subtract, PostgreSQL text both ways', async (t) => {
  t.same(
    normalize([
      [9, 12],
      [1, 3],
      [4, 5],
      [11, 20],
      [30, 30],
    ]),
    [
      [1, 5],
      [9, 20],
      [30, 30],
    ],
    'adjacent and overlapping ranges merge',
  )
  t.same(normalize([]), [])
  t.same(
    minus(
      [
        [1, 10],
        [20, 30],
      ],
      [
        [3, 3],
        [5, 6],
        [10, 21],
        [40, 50],
      ],
    ),
    [
      [1, 2],
      [4, 4],
      [7, 9],
      [22, 30],
    ],
  )
  t.same(minus([[1, 5]], []), [[1, 5]])
  t.same(minus([[1, 5]], [[0, 9]]), [])
  t.same(
    minus(
      [[1, 10]],
      [
        [2, 3],
        [5, 20],
      ],
    ),
    [
      [1, 1],
      [4, 4],
    ],
    'a range of b past the end of a range of a',
  )
  t.same(
    minus(
      [
        [1, 3],
        [5, 9],
      ],
      [[2, 6]],
    ),
    [
      [1, 1],
      [7, 9],
    ],
    'one range of b across two of a',
  )
  t.same(
    union(
      [
        [1, 2],
        [10, 12],
      ],
      [
        [3, 4],
        [8, 9],
        [20, 20],
      ],
    ),
    [
      [1, 4],
      [8, 12],
      [20, 20],
    ],
  )
  t.same(union([], [[1, 2]]), [[1, 2]])
  t.same(union([[1, 2]], []), [[1, 2]])
  t.same(parseRanges('{[6,9],[12,12]}'), [
    [6, 9],
    [12, 12],
  ])
  t.same(parseRanges('{}'), [])
  t.equal(
    formatRanges([
      [6, 9],
      [12, 12],
    ]),
    '{[6,9],[12,12]}',
  )
  t.equal(formatRanges([]), '{}')
  // A random check against sets of numbers.
  const toSet = (ranges: [number, number][]) => new Set(ranges.flatMap(([low, high]) => Array.from({ length: high - low + 1 }, (_, i) => low + i)))
  const random = (seed: number) => {
    let state = seed
    return normalize(
      Array.from({ length: 12 }, () => {
        state = (state * 1103515245 + 12345) % 2 ** 31
        const low = state % 60
        return [low, low + (state % 5)] as [number, number]
      }),
    )
  }
  for (let seed = 1; seed < 40; seed++) {
    const [a, b] = [random(seed), random(seed * 7 + 3)]
    t.same(toSet(minus(a, b)), new Set([...toSet(a)].filter((n) => !toSet(b).has(n))), `minus ${seed}`)
    t.same(toSet(union(a, b)), new Set([...toSet(a), ...toSet(b)]), `union ${seed}`)
    t.same(normalize(union(a, b)), union(a, b), `union ${seed} is normalized`)
  }
})

t.test('a chain step: from the stored point, as far as the whole spans reach', async (t) => {
  const empty = { seq: null, events: [], cleared: [], history: [] }
  t.same(advanceChain(empty, undefined), { state: empty, moved: false, pending: false }, 'nothing to follow')
  const start = advanceChain(empty, {
    events: [
      [11, 12],
      [14, 15],
    ],
    cleared: [[15, 15]],
    history: [],
    firstPrev: 10,
  })
  t.same(start, { state: { seq: 12, events: [[14, 15]], cleared: [[15, 15]], history: [] }, moved: true, pending: true })
  const filled = advanceChain(start.state, { events: [[13, 13]], cleared: [], history: [], firstPrev: 12 })
  t.same(
    filled,
    { state: { seq: 14, events: [[15, 15]], cleared: [[15, 15]], history: [] }, moved: true, pending: true },
    'the clearing at 15 waits for its summary',
  )
  const whole = advanceChain(filled.state, { events: [], cleared: [], history: [[15, 15]], firstPrev: 14 })
  t.same(whole, { state: { seq: 15, events: [], cleared: [], history: [] }, moved: true, pending: false })
  t.same(
    advanceChain(whole.state, { events: [[3, 4]], cleared: [], history: [], firstPrev: 2 }),
    { state: whole.state, moved: false, pending: false },
    'old spans change nothing',
  )
})

t.test('pending chains: committed batches merged per site until stored; kept again when storing fails', async (t) => {
  const site = new SimulatedSite('pending', { prefix })
  const first = parsed(orders(site, 1))
  const second = parsed(orders(site, 1))
  const other = new SimulatedSite('status-only', { prefix })
  const pending = new PendingChains()
  pending.add([...second, ...parsed([other.status(true)])])
  pending.add(first)
  t.equal(pending.size, 2)
  const work = pending.take()
  t.equal(pending.size, 0)
  t.same(work.get('pending'), {
    events: [[1, 6]],
    cleared: [
      [3, 3],
      [6, 6],
    ],
    history: [
      [3, 3],
      [6, 6],
    ],
    firstPrev: 0,
  })
  t.equal(work.get('status-only'), undefined, 'a status: walked, no spans')
  t.ok(work.has('status-only'))
  pending.add(parsed(orders(site, 1)))
  pending.restore(work)
  const again = pending.take()
  t.same(again.get('pending'), {
    events: [[1, 9]],
    cleared: [
      [3, 3],
      [6, 6],
      [9, 9],
    ],
    history: [
      [3, 3],
      [6, 6],
      [9, 9],
    ],
    firstPrev: 0,
  })
  t.ok(again.has('status-only'))
})
