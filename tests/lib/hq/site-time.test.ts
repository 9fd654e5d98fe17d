// Times, days and targets come from the site, not from HQ's configuration: a site in a zone
// HQ was never told of shows right ages; its status brings its zone and target, by which its
// "today" and its late orders are counted; the chain's today is the sum of the sites' own
// days. An older gateway's event (local times, no offset) is still read, in HQ's zone for it.
// Real PostgreSQL; the messages are the site's own rendering (lib/fleet/messages.ts).
import t from 'tap'
import { fleetMessages } from '../../../lib/fleet/messages.ts'
import { applyBatch, clearedInstants } from '../../../lib/hq/apply.ts'
import { hqConfigSchema } from '../../../lib/hq/config.ts'
import { parseSiteMessage, type SiteMessage } from '../../../lib/hq/messages.ts'
import { listSites, siteOrders, statistics } from '../../../lib/hq/queries.ts'
import { Partitions } from '../../../lib/hq/schema.ts'
import type { OrderChange } from '../../../lib/orders/types.ts'
import type { Database } from '../../../lib/store/postgres.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { order } from '../fleet/fixtures.ts'
import { freshDatabase, prefix } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

// HQ as installed with nothing said about the sites' zones, nor their targets.
const config = { ...hqConfigSchema.pick({ timezone: true, siteTimezones: true, targetSeconds: true }).parse({}), alerts: { offlineMinutes: 10 } }

function parsed(siteId: string, channel: string, payload: string): SiteMessage {
  const result = parseSiteMessage(prefix, `${prefix}/${siteId}/${channel}`, payload)
  if (!result.ok) throw new Error(result.reason)
  return result.message
}

async function apply(db: Database, messages: SiteMessage[]) {
  // A Partitions per call: it remembers what it made, and each test has its own database.
  await new Partitions().ensure(db, clearedInstants(messages))
  return db.transaction((tx) => applyBatch(tx, messages, { timezoneOf: () => config.timezone, targetSeconds: config.targetSeconds }))
}

function siteEvents(siteId: string, timezone: string, change: OrderChange): SiteMessage[] {
  return fleetMessages(change, { siteId, timezone }).map((m) => parsed(siteId, m.channel, m.payload))
}

function status(siteId: string, extra: Record<string, unknown>): SiteMessage {
  const now = new Date().toISOString()
  return parsed(siteId, 'status', JSON.stringify({ siteId, online: true, startedAt: now, at: now, backlog: 0, ...extra }))
}

t.test("a site in a zone HQ was not told of shows its orders' right age and its own target", async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const now = Date.now()
  // Kiritimati is UTC+14: read in HQ's zone (UTC), its local times would be 14 hours ahead.
  const fresh = order(1, { created: now - 2000, stateChanged: now - 2000 })
  await apply(db, [
    status('kiritimati', { timezone: 'Pacific/Kiritimati', targetSeconds: 30 }),
    ...siteEvents('kiritimati', 'Pacific/Kiritimati', { seq: 1, type: 'ORDER_CREATED', order: fresh, at: now }),
  ])
  const [live] = await siteOrders(db, config, 'kiritimati')
  t.ok(live!.elapsedSeconds >= 1 && live!.elapsedSeconds < 60, `a 2-second-old order is seconds old at HQ (${live!.elapsedSeconds} s)`)
  t.equal(live!.created, new Date(fresh.created).toISOString(), "its creation instant is the site's")
  t.notOk(live!.late, 'and not late')

  // 40 s old: late by the site's own 30 s target (HQ's own default is 600 s).
  const older = order(2, { created: now - 40_000, stateChanged: now - 40_000 })
  await apply(db, siteEvents('kiritimati', 'Pacific/Kiritimati', { seq: 2, type: 'ORDER_CREATED', order: older, at: now }))
  const orders = await siteOrders(db, config, 'kiritimati')
  t.same(
    orders.map((o) => [o.name, o.late]),
    [
      ['2', true],
      ['1', false],
    ],
    "late by the site's target",
  )
  const [site] = await listSites(db, config)
  t.equal(site!.targetSeconds, 30, "the board shows the site's target")
  t.equal(site!.timezone, 'Pacific/Kiritimati', 'and its zone')
  t.equal(site!.lateNow, 1, 'and counts late by it')
})

t.test("an older gateway's event (local times without offset) is read in HQ's zone for the site", async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const now = Date.now()
  const rendered = fleetMessages(
    { seq: 1, type: 'ORDER_CREATED', order: order(1, { created: now - 2000, stateChanged: now - 2000 }), at: now },
    { siteId: 'old', timezone: 'UTC' },
  )
  const { createdAt: _c, stateStartedAt: _s, ...older } = JSON.parse(rendered[0]!.payload)
  await apply(db, [parsed('old', 'events', JSON.stringify(older))])
  const [live] = await siteOrders(db, config, 'old')
  t.ok(live!.elapsedSeconds >= 1 && live!.elapsedSeconds < 60, `read in HQ's zone (${live!.elapsedSeconds} s)`)
  const [site] = await listSites(db, config)
  t.equal(site!.targetSeconds, 600, "HQ's target for a site that sends none")
  t.equal(site!.timezone, 'UTC', "and HQ's zone")
})

t.test("a site's today is its own day; the chain's today is the sum of the sites' own days", async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const now = Date.now()
  // Two sites 26 hours apart: at any instant they are on different dates.
  const sites = { east: 'Pacific/Kiritimati', west: 'Pacific/Pago_Pago' }
  let seq = 0
  for (const [siteId, timezone] of Object.entries(sites)) {
    const cleared = order(1, { created: now - 60_000, stateChanged: now - 1000, located: now - 30_000, locationName: 4, state: 'cleared' })
    await apply(db, [status(siteId, { timezone }), ...siteEvents(siteId, timezone, { seq: ++seq, type: 'ORDER_CLEARED', order: cleared, at: now - 1000 })])
  }
  const board = await listSites(db, config)
  t.same(
    board.map((s) => [s.siteId, s.today.orders]),
    [
      ['east', 1],
      ['west', 1],
    ],
    'each site counts its order in its own today',
  )
  const chain = await statistics(db, config, 'today', null)
  t.equal(chain.orders, 2, "the chain's today is the sum of both")
  t.equal(chain.basis, 'sites-own-days', 'and says so')
  t.equal(chain.days.length, 2, "two dates among the sites' todays")
  t.equal(chain.late, 0, "both took 30 s to their table, within HQ's 600 s")
  const east = await statistics(db, config, 'today', 'east')
  t.equal(east.orders, 1, "a site's statistics: its own today")
  t.equal(east.from, new Intl.DateTimeFormat('en-CA', { timeZone: sites.east }).format(new Date()), 'dated in its zone')
})

t.test("the figures count an order late by its site's own target", async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const now = Date.now()
  const cleared = (name: number, toTableS: number) =>
    order(name, { created: now - 120_000, stateChanged: now - 1000, located: now - 120_000 + toTableS * 1000, locationName: 4, state: 'cleared' })
  await apply(db, [status('quick', { timezone: 'UTC', targetSeconds: 30 })])
  await apply(db, [
    ...siteEvents('quick', 'UTC', { seq: 1, type: 'ORDER_CLEARED', order: cleared(1, 40), at: now - 1000 }),
    ...siteEvents('quick', 'UTC', { seq: 2, type: 'ORDER_CLEARED', order: cleared(2, 20), at: now - 1000 }),
  ])
  const site = await statistics(db, config, 'today', 'quick')
  t.equal(site.orders, 2)
  t.equal(site.late, 1, "40 s to the table is late by the site's 30 s target (HQ's own is 600 s)")
  const [overview] = await listSites(db, config)
  t.equal(overview!.today.late, 1, 'on the board too')
})
