// A site's radio through the status apply (lib/hq/apply.ts) against a real PostgreSQL: kept
// as the latest status of the site says, whatever the order and the duplicates; unknown for
// a gateway that does not report it; the last known state kept while the site is offline.
// (The apply of changes and summaries is tested with the ingest, tests/lib/hq/ingest.test.ts.)
import t from 'tap'
import { SimulatedSite, type SiteMessageOut } from '../../../bench/hq-sites.ts'
import { applyBatch } from '../../../lib/hq/apply.ts'
import { hqConfigSchema } from '../../../lib/hq/config.ts'
import { parseSiteMessage, type SiteMessage } from '../../../lib/hq/messages.ts'
import { listSites } from '../../../lib/hq/queries.ts'
import type { Database } from '../../../lib/store/postgres.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { freshDatabase, prefix } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

const parsed = (...messages: SiteMessageOut[]): SiteMessage[] =>
  messages.map((m) => {
    const result = parseSiteMessage(prefix, m.topic, m.payload)
    if (!result.ok) throw new Error(result.reason)
    return result.message
  })

const apply = (db: Database, ...messages: SiteMessageOut[]) =>
  db.transaction((tx) => applyBatch(tx, parsed(...messages), { timezoneOf: () => 'UTC', targetSeconds: 600 }))

async function radio(db: Database, siteId: string) {
  const { rows } = await db.query<{ radio_up: boolean | null; radio_down_since: Date | null }>(
    'SELECT radio_up, radio_down_since FROM hq_sites WHERE site_id = $1',
    [siteId],
  )
  return rows[0]!
}

const queryConfig = hqConfigSchema.pick({ timezone: true, siteTimezones: true, targetSeconds: true }).parse({})

t.test('the radio of the newest status wins, whatever the order and the duplicates', async (t) => {
  const base = Date.now() - 60_000
  const site = new SimulatedSite('paris-11', { prefix, startedAt: base - 60_000 })
  const up = site.status(true, { radioUp: true, at: base })
  const down = site.status(true, { radioUp: false, at: base + 10_000 })
  const orderly = await freshDatabase(pg)
  const reversed = await freshDatabase(pg)
  t.teardown(() => Promise.all([orderly.db.close(), reversed.db.close()]))

  await apply(orderly.db, up)
  t.same(await radio(orderly.db, 'paris-11'), { radio_up: true, radio_down_since: null })
  await apply(orderly.db, down)
  const first = await radio(orderly.db, 'paris-11')
  t.equal(first.radio_up, false)
  t.ok(first.radio_down_since instanceof Date, 'down since it was first seen down')

  // Newest first, each twice, one per transaction (as two instances may apply them): the
  // older "up" must not overwrite "down". (Within one batch, the broker's order for a site
  // holds: the one that arrived last is applied.)
  for (const message of [down, up, down, up]) await apply(reversed.db, message)
  t.equal((await radio(reversed.db, 'paris-11')).radio_up, false)

  // A duplicate of the "down" status (and the periodic refresh saying down again) keeps the
  // moment it went down.
  await apply(orderly.db, down, site.status(true, { radioUp: false, at: base + 70_000 }))
  t.same(await radio(orderly.db, 'paris-11'), first)

  // Back up: no longer down.
  await apply(orderly.db, site.status(true, { radioUp: true, at: base + 80_000 }))
  t.same(await radio(orderly.db, 'paris-11'), { radio_up: true, radio_down_since: null })
})

t.test('offline keeps the radio as last known; a gateway that does not report it makes it unknown', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const base = Date.now() - 60_000
  const site = new SimulatedSite('lyon-2', { prefix, startedAt: base - 60_000 })
  await apply(db, site.status(true, { radioUp: false, at: base }))
  const down = await radio(db, 'lyon-2')
  // The offline messages (last will, stop) carry no radioUp.
  await apply(db, site.status(false, { reason: 'connection lost', at: base - 30_000 }))
  t.same(await radio(db, 'lyon-2'), down, 'offline: the radio as last known, and since when')
  const [row] = await listSites(db, { ...queryConfig, alerts: { offlineMinutes: 10 } })
  t.match(row, { siteId: 'lyon-2', connection: 'offline', radioUp: false, radioDownSince: down.radio_down_since!.toISOString() })

  // The site comes back with a gateway that does not report its radio (an older version).
  const older = new SimulatedSite('lyon-2', { prefix, startedAt: base })
  await apply(db, older.status(true, { at: base + 1000 }))
  t.same(await radio(db, 'lyon-2'), { radio_up: null, radio_down_since: null })
  const [again] = await listSites(db, { ...queryConfig, alerts: { offlineMinutes: 10 } })
  t.match(again, { connection: 'online', radioUp: null, radioDownSince: null })
})

t.test('a status from an older run of the gateway does not bring its radio back', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const base = Date.now() - 60_000
  const before = new SimulatedSite('nice-1', { prefix, startedAt: base - 120_000 })
  const now = new SimulatedSite('nice-1', { prefix, startedAt: base })
  await apply(db, now.status(true, { radioUp: false, at: base + 1000 }))
  await apply(db, before.status(true, { radioUp: true, at: base + 2000 }))
  t.equal((await radio(db, 'nice-1')).radio_up, false)
})

t.test('a gateway started again counts its radio down from its own first status', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const base = Date.now() - 60_000
  const first = new SimulatedSite('bonn-1', { prefix, startedAt: base - 120_000 })
  await apply(db, first.status(true, { radioUp: false, at: base - 60_000 }))
  await db.query(`UPDATE hq_sites SET radio_down_since = now() - interval '1 hour'`)
  await apply(db, first.status(false, { reason: 'stopped', at: base - 30_000 }))
  t.ok((await radio(db, 'bonn-1')).radio_down_since! < new Date(Date.now() - 3_000_000), 'offline: still down for an hour')
  await apply(db, new SimulatedSite('bonn-1', { prefix, startedAt: base }).status(true, { radioUp: false, at: base + 1000 }))
  const now = await radio(db, 'bonn-1')
  t.equal(now.radio_up, false)
  t.ok(now.radio_down_since! > new Date(Date.now() - 60_000), 'down since this run said so')
})
