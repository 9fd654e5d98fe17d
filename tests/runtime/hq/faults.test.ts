// Faults with real engines: PostgreSQL restarted and the broker restarted while sites
// publish, and one site back after days with a backlog while the others go on. Each ends
// with the rows of one orderly apply: nothing lost, nothing doubled.
import t, { type Test } from 'tap'
import { SimulatedSite, type SiteMessageOut } from '../../../bench/hq-sites.ts'
import { applyBatch } from '../../../lib/hq/apply.ts'
import type { Ingest } from '../../../lib/hq/ingest.ts'
import { parseSiteMessage } from '../../../lib/hq/messages.ts'
import { Partitions } from '../../../lib/hq/schema.ts'
import type { Database } from '../../../lib/store/postgres.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { until, untilProgress } from '../../helpers/until.ts'
import { startBroker } from '../../lib/fleet/mosquitto.ts'
import { freshDatabase, hqConfig, prefix, publishAll, publisher, snapshot, startIngest } from '../../lib/hq/fixtures.ts'
import WebSocket from 'ws'
import { brokerLines, hqApi, startChain } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())
const base = Date.parse('2026-11-25T11:00:00Z')

function play(sites: SimulatedSite[], orders: number, from = base): SiteMessageOut[] {
  const out: SiteMessageOut[] = []
  for (let i = 0; i < orders; i++) for (const site of sites) out.push(...site.fullOrder(from + i * 60_000, 90 + (i % 7) * 20, 300))
  return out
}

async function expectOrderly(t: Test, db: Database, messages: SiteMessageOut[], instances: Ingest[]) {
  const reference = await freshDatabase(pg)
  t.teardown(() => reference.db.close())
  const parsed = messages.map((m) => {
    const result = parseSiteMessage(prefix, m.topic, m.payload)
    if (!result.ok) throw new Error(result.reason)
    return result.message
  })
  await new Partitions().ensure(
    reference.db,
    parsed.flatMap((m) => (m.kind === 'history' ? [Date.parse(m.orderCleared)] : [])),
  )
  await reference.db.transaction((tx) => applyBatch(tx, parsed, { timezoneOf: () => 'UTC', targetSeconds: 600 }))
  const expected = await snapshot(reference.db)
  // However slowly they come on a busy machine: the wait fails only when none comes for a minute.
  let stored = 0
  const count = async () => (stored = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hq_history')).rows[0]!.n)
  await untilProgress(
    async () => (await count()) === expected.history.length,
    () => stored,
    'every cleared order',
  )
  await until(() => instances.every((i) => i.status().pending === 0), 'nothing pending')
  t.same(await snapshot(db), expected, 'the rows of one orderly apply')
}

t.test('PostgreSQL restarted while sites publish: batches wait, then apply', async (t) => {
  const server = await startPostgres({ fast: true })
  t.teardown(() => server.destroy())
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(server)
  t.teardown(() => db.close())
  const a = await startIngest(hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'pa' }), db)
  t.teardown(() => a.stop())
  const sites = Array.from({ length: 4 }, (_, i) => new SimulatedSite(`pg-${i}`, { prefix }))
  const client = await publisher(broker.url)
  t.teardown(() => client.endAsync(true))
  const before = play(sites, 10)
  await publishAll(client, before)
  await until(async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hq_history')).rows[0]!.n > 0, 'some applied')
  await server.stop()
  const during = play(sites, 10, base + 3_600_000)
  await publishAll(client, during)
  await until(() => a.status().lastError?.startsWith('postgres:') ?? false, 'ingest sees PostgreSQL gone')
  t.ok(a.status().pending > 0, 'what arrived meanwhile waits, unacknowledged')
  await server.start()
  await expectOrderly(t, db, [...before, ...during], [a])
})

t.test('the broker restarted: sessions and unacknowledged messages survive', async (t) => {
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const a = await startIngest(hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'ba' }), db)
  const b = await startIngest(hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'bb' }), db)
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  const sites = Array.from({ length: 4 }, (_, i) => new SimulatedSite(`br-${i}`, { prefix }))
  const client = await publisher(broker.url)
  t.teardown(() => client.endAsync(true))
  const before = play(sites, 10)
  await publishAll(client, before)
  await broker.stop()
  await until(() => !a.status().connected && !b.status().connected, 'both see the broker gone')
  await broker.start()
  // Mosquitto 2.0 forgets shared subscriptions on restart: publish once both subscribed again.
  await until(() => a.status().subscribed && b.status().subscribed, 'both back and subscribed')
  const after = play(sites, 10, base + 3_600_000)
  await publishAll(client, after)
  await expectOrderly(t, db, [...before, ...after], [a, b])
})

t.test('unshared subscriptions: what sites publish after a broker restart, before HQ is back, waits for it', async (t) => {
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const config = hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'ua', shared: false })
  const first = await startIngest(config, db)
  await first.stop()
  await broker.stop()
  await broker.start()
  const client = await publisher(broker.url)
  t.teardown(() => client.endAsync(true))
  const sites = Array.from({ length: 3 }, (_, i) => new SimulatedSite(`un-${i}`, { prefix }))
  const messages = play(sites, 5)
  await publishAll(client, messages)
  const back = await startIngest(config, db)
  t.teardown(() => back.stop())
  await expectOrderly(t, db, messages, [back])
})

t.test('a site back after days with a backlog while the others go on', async (t) => {
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const a = await startIngest(hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'ka' }), db)
  const b = await startIngest(hqConfig({ postgresUrl: url, brokerUrl: broker.url, instanceId: 'kb' }), db)
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  const away = new SimulatedSite('away', { prefix })
  const others = Array.from({ length: 5 }, (_, i) => new SimulatedSite(`open-${i}`, { prefix }))
  // Three days of orders, published at once as the site's bridge catches up: ~5,000 changes.
  const backlog: SiteMessageOut[] = []
  for (let day = 0; day < 3; day++) backlog.push(...play([away], 550, base - (3 - day) * 86_400_000))
  const siteClient = await publisher(broker.url)
  const othersClient = await publisher(broker.url)
  t.teardown(() => Promise.all([siteClient.endAsync(true), othersClient.endAsync(true)]))
  const catchingUp = publishAll(siteClient, backlog)
  const current: SiteMessageOut[] = []
  for (let round = 0; round < 5; round++) {
    const messages = play(others, 2, base + round * 600_000)
    current.push(...messages)
    await publishAll(othersClient, messages)
  }
  await catchingUp
  t.ok(away.seq >= 4900, `${away.seq} changes in the backlog`)
  await expectOrderly(t, db, [...backlog, ...current], [a, b])
  const months = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'hq_history'::regclass`)
  t.ok(months.rows[0]!.n >= 1, 'history partitions created on demand')
})

t.test('PostgreSQL restarted under a running HQ: the API says 503, boards are told to read everything again', async (t) => {
  const server = await startPostgres({ fast: true })
  t.teardown(() => server.destroy())
  const chain = await startChain(t, server)
  const api = hqApi(chain.url(chain.b), chain.token)
  const live = new WebSocket(`ws://127.0.0.1:${chain.b.port}/api/hq/live`, ['hq', `token.${chain.token}`])
  t.teardown(() => live.terminate())
  const notices: any[] = []
  live.on('message', (data) => notices.push(JSON.parse(String(data))))
  await until(() => notices.length > 0, 'hello')
  await server.stop()
  t.match(await api('/api/hq/sites'), { status: 503, body: { returnCode: -37, message: 'PostgreSQL is unavailable' } })
  await server.start()
  await until(() => notices.some((n) => n.type === 'changed' && n.sites === '*'), 'a notice to read everything')
  await until(async () => (await api('/api/hq/sites')).status === 200, 'the API back')
  // Ingest goes on too: a site's change after the restart reaches the board.
  const client = await publisher(chain.broker.url)
  t.teardown(() => client.endAsync(true))
  await publishAll(client, new SimulatedSite('after', { prefix }).create().messages)
  await until(() => notices.some((n) => n.type === 'changed' && Array.isArray(n.sites) && n.sites.includes('after')), 'live again')
  // A malformed message is counted, acknowledged and changes nothing.
  await client.publishAsync(`${prefix}/after/events`, '{"not":"an event"}', { qos: 1 })
  await until(() => chain.a.ingest.status().rejected === 1, 'rejected')
  await until(() => chain.a.ingest.status().pending === 0, 'acknowledged with its batch')
})
