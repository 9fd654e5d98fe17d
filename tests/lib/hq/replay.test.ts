// Replay requests (lib/hq/replay.ts) against a real PostgreSQL: a hole held longer than the
// grace is asked for once per retry, from chain_seq + 1 to the highest seq known; what the
// site says it can no longer replay is recorded as lost (an alert naming the range, widened
// while open, sent signed like the others) and the chain goes on after it.
import t from 'tap'
import { SimulatedSite, type SiteMessageOut } from '../../../bench/hq-sites.ts'
import { evaluateAlerts, openAlerts } from '../../../lib/hq/alerts.ts'
import { applyBatch } from '../../../lib/hq/apply.ts'
import { PendingChains, storeChains } from '../../../lib/hq/chain.ts'
import { hqConfigSchema } from '../../../lib/hq/config.ts'
import { parseSiteMessage } from '../../../lib/hq/messages.ts'
import { planReplays } from '../../../lib/hq/replay.ts'
import { Partitions } from '../../../lib/hq/schema.ts'
import type { Database } from '../../../lib/store/postgres.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { freshDatabase, prefix } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

async function apply(db: Database, messages: SiteMessageOut[]) {
  const list = messages.map((m) => {
    const result = parseSiteMessage(prefix, m.topic, m.payload)
    if (!result.ok) throw new Error(result.reason)
    return result.message
  })
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

const orders = (site: SimulatedSite, count: number) =>
  Array.from({ length: count }, (_, i) => site.fullOrder(Date.parse('2026-11-25T11:00:00Z') + i * 60_000, 60, 120)).flat()
const now = { graceSeconds: 0, retrySeconds: 3600 }
const plan = (db: Database, config = now, lostHours = 24) => db.transaction((tx) => planReplays(tx, config, lostHours))
const chainSeq = async (db: Database, site: string) =>
  Number((await db.query<{ chain_seq: string }>('SELECT chain_seq FROM hq_site_chains WHERE site_id = $1', [site])).rows[0]!.chain_seq)

t.test('a hole held past the grace is asked for, once per retry; whole sites are not', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const holed = new SimulatedSite('holed', { prefix })
  const whole = new SimulatedSite('whole', { prefix })
  const messages = orders(holed, 5)
  await apply(db, [...messages.filter((m) => m.seq < 4 || m.seq > 9), ...orders(whole, 3), whole.status(true)])
  t.same(await plan(db, { graceSeconds: 3600, retrySeconds: 0 }), { requests: [], lost: [] }, 'not before the grace')
  t.same(await plan(db), { requests: [{ siteId: 'holed', from: 4, to: 15 }], lost: [] })
  t.same(await plan(db), { requests: [], lost: [] }, 'asked: not again before retrySeconds')
  t.same(await plan(db, { graceSeconds: 0, retrySeconds: 0 }), { requests: [{ siteId: 'holed', from: 4, to: 15 }], lost: [] }, 'asked again after it')
  // The status says more was published than arrived: asked up to there.
  const next = orders(holed, 1)
  await apply(db, [holed.status(true, { replayAfter: 0 }), ...next.filter((m) => m.seq === 16)])
  t.same((await plan(db, { graceSeconds: 0, retrySeconds: 0 })).requests, [{ siteId: 'holed', from: 4, to: 18 }])
  await apply(db, messages)
  t.equal(await chainSeq(db, 'holed'), 16)
  const { rows } = await db.query<{ replay_requests: number; gap: boolean }>(
    `SELECT replay_requests, gap_since IS NOT NULL AS gap FROM hq_site_chains WHERE site_id = 'holed'`,
  )
  t.same(rows[0], { replay_requests: 3, gap: true }, 'still 17 and 18 to come')
})

t.test('what the site can no longer replay is lost: an alert names the range, the chain goes on', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const site = new SimulatedSite('lossy', { prefix })
  const messages = orders(site, 10) // seqs 1..30
  // 5..12 never arrive and the site keeps only what is above 8; 20..22 missing too.
  await apply(
    db,
    messages.filter((m) => m.seq < 5 || (m.seq > 12 && m.seq < 20) || m.seq > 22),
  )
  await apply(db, [site.status(true, { replayAfter: 8 })])
  t.same(await plan(db), { requests: [{ siteId: 'lossy', from: 9, to: 30 }], lost: [{ siteId: 'lossy', after: 4, through: 8 }] })
  t.equal(await chainSeq(db, 'lossy'), 8, 'the chain goes on after the lost range')
  const alerts = hqConfigSchema.shape.alerts.parse({})
  const { raised } = await db.transaction((tx) => evaluateAlerts(tx, alerts))
  t.match(raised, [{ siteId: 'lossy', kind: 'lost', detail: 'changes after seq 4 through seq 8 are lost: the site could no longer replay them' }])
  // The replay brings 9..12 but 20..22 stay missing, and the site has moved its window past them.
  await apply(
    db,
    messages.filter((m) => m.seq >= 9 && m.seq <= 12),
  )
  t.equal(await chainSeq(db, 'lossy'), 19)
  await apply(db, [site.status(true, { replayAfter: 25 })])
  t.same(await plan(db, { graceSeconds: 0, retrySeconds: 0 }), { requests: [], lost: [{ siteId: 'lossy', after: 19, through: 25 }] }, 'nothing left to ask')
  t.equal(await chainSeq(db, 'lossy'), 30)
  t.match(
    await openAlerts(db),
    [{ siteId: 'lossy', kind: 'lost', detail: 'changes after seq 4 through seq 25 are lost: the site could no longer replay them' }],
    'the open alert widened',
  )
  const { rows } = await db.query<{ gap: boolean }>(`SELECT gap_since IS NOT NULL AS gap FROM hq_site_chains WHERE site_id = 'lossy'`)
  t.equal(rows[0]!.gap, false)
  // It clears after alerts.lostHours.
  await db.query(`UPDATE hq_sites SET lost_at = now() - interval '25 hours'`)
  const { cleared } = await db.transaction((tx) => evaluateAlerts(tx, alerts))
  t.match(cleared, [{ siteId: 'lossy', kind: 'lost' }])
})

t.test('two instances planning at once ask each site once', async (t) => {
  const { url, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  for (let i = 0; i < 20; i++) {
    const site = new SimulatedSite(`s-${String(i).padStart(2, '0')}`, { prefix })
    await apply(
      db,
      orders(site, 2).filter((m) => m.seq !== 2),
    )
  }
  const { openDatabase } = await import('../../../lib/store/postgres.ts')
  const other = openDatabase(url, { max: 2 })
  t.teardown(() => other.close())
  const [a, b] = await Promise.all([plan(db), plan(other)])
  const asked = [...a.requests, ...b.requests].map((r) => r.siteId).sort()
  t.same(
    asked,
    Array.from({ length: 20 }, (_, i) => `s-${String(i).padStart(2, '0')}`),
  )
})
