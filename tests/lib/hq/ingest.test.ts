// Ingest against a real Mosquitto and a real PostgreSQL: two instances share the sites'
// messages; duplicates and reordering leave the same rows as one orderly delivery.
import t from 'tap'
import { startPostgres } from '../../helpers/postgres.ts'
import { startBroker } from '../fleet/mosquitto.ts'
import { until } from '../../helpers/until.ts'
import { SimulatedSite, type SiteMessageOut } from '../../../bench/hq-sites.ts'
import { applyBatch } from '../../../lib/hq/apply.ts'
import { parseSiteMessage, type SiteMessage } from '../../../lib/hq/messages.ts'
import { Partitions } from '../../../lib/hq/schema.ts'
import { freshDatabase, hqConfig, prefix, publishAll, publisher, snapshot, startIngest } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

const base = Date.parse('2026-11-25T11:00:00Z')

function play(sites: SimulatedSite[], ordersPerSite: number): SiteMessageOut[] {
  const out: SiteMessageOut[] = []
  for (let i = 0; i < ordersPerSite; i++) {
    for (const site of sites) out.push(...site.fullOrder(base + i * 60_000, 120 + i * 30, 600))
  }
  // One order per site still open, on its table.
  for (const site of sites) {
    const { order, messages } = site.create(base + ordersPerSite * 60_000)
    out.push(...messages, ...site.locate(order.uuid, 7, base + ordersPerSite * 60_000 + 90_000))
  }
  return out
}

const parsed = (messages: SiteMessageOut[]): SiteMessage[] =>
  messages.map((m) => {
    const result = parseSiteMessage(prefix, m.topic, m.payload)
    if (!result.ok) throw new Error(result.reason)
    return result.message
  })

async function applyDirect(db: Awaited<ReturnType<typeof freshDatabase>>['db'], messages: SiteMessage[], batch: number, timezone = 'UTC', targetSeconds = 600) {
  const partitions = new Partitions()
  for (let i = 0; i < messages.length; i += batch) {
    const slice = messages.slice(i, i + batch)
    await partitions.ensure(
      db,
      slice.filter((m) => m.kind === 'history').map((m) => Date.parse((m as { orderCleared: string }).orderCleared)),
    )
    await db.transaction((tx) => applyBatch(tx, slice, { timezoneOf: () => timezone, targetSeconds }))
  }
}

t.test('apply: a duplicate or an older change after a newer one leaves the same rows', async (t) => {
  const sites = [new SimulatedSite('s1', { prefix, timezone: 'Europe/Paris' }), new SimulatedSite('s2', { prefix, timezone: 'Europe/Paris' })]
  const messages = parsed(play(sites, 6))
  const orderly = await freshDatabase(pg)
  const shuffled = await freshDatabase(pg)
  t.teardown(() => Promise.all([orderly.db.close(), shuffled.db.close()]))
  await applyDirect(orderly.db, messages, 1000, 'Europe/Paris', 300)
  // Every message twice, newest first, in small batches: the worst order there is.
  await applyDirect(shuffled.db, [...messages, ...messages].reverse(), 7, 'Europe/Paris', 300)
  const a = await snapshot(orderly.db)
  const b = await snapshot(shuffled.db)
  t.same(b, a)
  t.equal(a.history.length, 12, 'every cleared order once')
  t.equal(a.live.filter((row) => row.state !== 'cleared').length, 2, 'one open order per site')
  t.same(a.sites, [
    { site_id: 's1', last_seq: 20 },
    { site_id: 's2', last_seq: 20 },
  ])
  const s1 = a.hours.filter((row) => row.site_id === 's1')
  t.equal(
    s1.reduce((sum, row) => sum + (row.orders as number), 0),
    6,
  )
  // to table: 120, 150, ... 270 s; target 300: none late
  t.equal(
    s1.reduce((sum, row) => sum + (row.to_table_seconds as number), 0),
    120 + 150 + 180 + 210 + 240 + 270,
  )
  t.match(
    a.days.filter((row) => row.site_id === 's1'),
    [{ day: '2026-11-25', orders: 6, located: 6, to_table_seconds: 120 + 150 + 180 + 210 + 240 + 270 }],
    'the day figures',
  )
  t.equal(
    a.chain.reduce((sum, row) => sum + (row.orders as number), 0),
    12,
    "the chain's hour figures",
  )
  t.equal(s1[0].day, '2026-11-25', "the site's own day")
  t.equal(s1[0].hour, 12, "the site's own hour (Paris, UTC+1)")
  const open = a.live.find((row) => row.site_id === 's1' && row.state === 'located')!
  t.equal((open.created_at as Date).toISOString(), new Date(base + 6 * 60_000).toISOString(), "local times read in the site's timezone")
})

t.test('two instances share the load; duplicates and reordering through the broker change nothing', async (t) => {
  const broker = await startBroker({ dir: t.testdir(), lines: ['max_inflight_messages 1000', 'max_queued_messages 0'] })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(pg)
  const reference = await freshDatabase(pg)
  t.teardown(() => Promise.all([db.close(), reference.db.close()]))
  const a = await startIngest(hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'a' }), db)
  const b = await startIngest(hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'b' }), db)
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  const sites = Array.from({ length: 5 }, (_, i) => new SimulatedSite(`site-${i}`, { prefix, timezone: 'UTC' }))
  const messages = play(sites, 20)
  const client = await publisher(broker.url)
  t.teardown(() => client.endAsync(true))
  // Each site's messages once in order, then a second copy of half of them, newest first.
  await publishAll(client, messages)
  await publishAll(client, messages.filter((_, i) => i % 2 === 0).reverse())
  const total = messages.length + Math.ceil(messages.length / 2)
  const received = () => a.status().applied.batches + b.status().applied.batches
  await until(
    async () => {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hq_history')
      return rows[0].n === 100 && a.status().pending + b.status().pending === 0
    },
    'every cleared order stored',
    30_000,
  )
  t.ok(a.status().applied.batches > 0 && b.status().applied.batches > 0, `both instances applied batches (${received()})`)
  await applyDirect(reference.db, parsed(messages), 1000)
  // Let the duplicates land too, then compare with a single orderly apply.
  await until(async () => a.status().pending + b.status().pending === 0, 'duplicates applied too')
  t.same(await snapshot(db), await snapshot(reference.db), `${total} messages, the rows of one orderly apply`)
})

t.test("status: the last one received wins, but not an older run's nor an older online one", async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const now = Date.parse('2026-11-25T12:00:00Z')
  const run1 = new SimulatedSite('s', { prefix, startedAt: now - 3_600_000 })
  const run2 = new SimulatedSite('s', { prefix, startedAt: now - 60_000 })
  const state = async () => (await db.query('SELECT online, reason, backlog, backlog_before FROM hq_sites')).rows[0]
  const apply = (...m: SiteMessageOut[]) => applyDirect(db, parsed(m), 1)
  await apply(run2.status(true, { at: now, backlog: 5 }))
  t.match(await state(), { online: true, backlog: 5 })
  await apply(run1.status(false, { at: now + 1000, reason: 'stopped' }))
  t.match(await state(), { online: true }, 'a status of an earlier run of the gateway changes nothing')
  await apply(run2.status(true, { at: now - 30_000, backlog: 9 }))
  t.match(await state(), { online: true, backlog: 5 }, 'an older online status of the same run changes nothing')
  // The last will: built when the connection was made, so older than the statuses since.
  await apply(run2.status(false, { at: now - 50_000, reason: 'connection lost', backlog: 7 }))
  t.match(await state(), { online: false, reason: 'connection lost', backlog: 7, backlog_before: 5 }, 'the last will wins')
  await apply(run2.status(true, { at: now + 5000, backlog: 0 }))
  t.match(await state(), { online: true, reason: null, backlog: 0 })
})

t.test('replay requests go out on the ingest connection, and only while connected', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const { Ingest } = await import('../../../lib/hq/ingest.ts')
  const { memoryLogger } = await import('../../helpers/memory-logger.ts')
  const idle = new Ingest({ config: hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'idle' }), db, log: memoryLogger().log })
  await t.rejects(idle.publish(`${prefix}/s/replay`, '{}'), /not connected/)
  const ingest = await startIngest(hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'pub' }), db)
  t.teardown(() => ingest.stop())
  const site = await publisher(broker.url)
  t.teardown(() => site.endAsync(true))
  const requests: string[] = []
  site.on('message', (topic, payload) => requests.push(`${topic} ${payload}`))
  await site.subscribeAsync(`${prefix}/s/replay`, { qos: 1 })
  await ingest.publish(`${prefix}/s/replay`, '{"from":1,"to":2}')
  await until(() => requests.length === 1, 'the request')
  t.same(requests, [`${prefix}/s/replay {"from":1,"to":2}`])
  await broker.stop()
  await until(() => !ingest.status().connected, 'the broker gone')
  await t.rejects(ingest.publish(`${prefix}/s/replay`, '{}'), /not connected/)
})
