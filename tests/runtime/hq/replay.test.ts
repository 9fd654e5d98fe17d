// The broker restarted under HQ's shared subscription, with real gateways' fleet bridges
// publishing through it. Mosquitto 2.0 does not restore shared subscriptions after a restart:
// what the sites publish before the HQ instances subscribe again reaches no one. Here the
// HQ instances are kept away (a proxy between them and the broker) until the sites have
// published their backlog and more, so that loss is certain; HQ then sees the holes
// (prevSeq, the status), asks each site to replay, and ends with every change once.
import t, { type Test } from 'tap'
import { hqConfigSchema, type HqConfig } from '../../../lib/hq/config.ts'
import { startHq } from '../../../runtime/hq/main.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { startReceiver } from '../../helpers/webhooks.ts'
import { until, untilProgress } from '../../helpers/until.ts'
import { startBroker } from '../../lib/fleet/mosquitto.ts'
import { SimulatedSite } from '../../../bench/hq-sites.ts'
import { freshDatabase, hqConfig, prefix, publishAll, publisher, snapshot } from '../../lib/hq/fixtures.ts'
import { brokerLines } from './fixtures.ts'
import { fleetSite, gate, orderlyRows } from './stack.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

/** Replaying on, with short waits: HQ asks for a hole after a second, again after three. */
const replayOn = { enabled: true, graceSeconds: 1, retrySeconds: 3, checkIntervalMs: 200 }

/**
 * What the broker-restart tests share: a broker (torn down with the test), HQ's way to it
 * through a gate the test can close, a fresh database, a count of its history rows, and a way
 * to start HQ instances on them with replaying on.
 */
async function replaySetting(t: Test) {
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const hqLink = await gate(broker.port)
  t.teardown(() => hqLink.stop())
  const { url: postgresUrl, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const history = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hq_history')).rows[0]!.n
  const startReplayingHq = (instanceId: string, more: Partial<HqConfig> = {}) =>
    startHq({
      config: hqConfig({ postgresUrl, brokerUrl: hqLink.url, instanceId, port: 0, host: '127.0.0.1', shared: true, replay: replayOn, ...more }),
      log: memoryLogger('error').log,
    })
  return { broker, hqLink, postgresUrl, db, history, startReplayingHq }
}

t.test('a broker restart under shared subscriptions: what no one received is replayed, every change lands once', async (t) => {
  const { broker, hqLink, postgresUrl, db, history, startReplayingHq } = await replaySetting(t)
  const a = await startReplayingHq('ra')
  const b = await startReplayingHq('rb')
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  await until(() => a.ingest.status().subscribed && b.ingest.status().subscribed, 'both subscribed')
  t.ok(hqConfig({ postgresUrl, brokerUrl: hqLink.url, instanceId: 'x', shared: true }).shared, 'a shared subscription (this test is about them)')

  const sites = await Promise.all(['north', 'south', 'east'].map((id) => fleetSite(id, broker.url)))
  for (const site of sites) site.fleet.start()
  t.teardown(() => Promise.all(sites.map((site) => site.fleet.stop())))
  await Promise.all(sites.map((site) => site.orders(4)))
  await until(async () => (await history()) === 12, 'the first orders at HQ')

  // HQ loses the broker, which restarts; the sites publish what they recorded meanwhile, and
  // more, before HQ is back: Mosquitto has no subscriber for it.
  hqLink.close()
  await broker.stop()
  await Promise.all(sites.map((site) => site.orders(3)))
  await broker.start()
  await until(() => sites.every((site) => site.fleet.status().state === 'connected' && site.fleet.status().backlog === 0), 'the sites caught up')
  await Promise.all(sites.map((site) => site.orders(2)))
  await until(() => sites.every((site) => site.fleet.status().backlog === 0), 'published')
  t.equal(await history(), 12, 'nothing of it reached HQ')
  hqLink.open()
  await until(() => a.ingest.status().subscribed && b.ingest.status().subscribed, 'HQ back and subscribed again')
  await Promise.all(sites.map((site) => site.orders(1)))

  // The rows of one orderly apply of every change every site recorded.
  const expected = await orderlyRows(
    pg,
    sites.flatMap((site) => site.recorded),
  )
  t.equal(expected.history.length, 30)
  let stored = 0
  await untilProgress(
    async () => (stored = await history()) === 30,
    () => stored,
    'every cleared order at HQ',
  )
  await until(() => a.ingest.status().pending === 0 && b.ingest.status().pending === 0, 'nothing pending')
  t.same(await snapshot(db), expected, 'every change once: the rows of one orderly apply')
  const { rows } = await db.query<{ site_id: string; asked: number; gap: boolean; chain: string }>(
    'SELECT site_id, replay_requests AS asked, gap_since IS NOT NULL AS gap, chain_seq AS chain FROM hq_site_chains ORDER BY site_id',
  )
  for (const row of rows) t.ok(row.asked > 0, `${row.site_id} was asked to replay`)
  await until(async () => (await db.query(`SELECT 1 FROM hq_site_chains WHERE gap_since IS NOT NULL`)).rowCount === 0, 'no gap left')
  t.same(
    await a
      .checkAlerts()
      .then(() => db.query(`SELECT kind FROM hq_alerts WHERE kind = 'lost'`))
      .then((r) => r.rows),
    [],
    'nothing lost',
  )
})

t.test('a site that can no longer replay all of it: HQ raises a lost alert naming the range, signed, and takes the rest', async (t) => {
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  const { broker, hqLink, db, history, startReplayingHq } = await replaySetting(t)
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`
  const hq = await startReplayingHq('la', {
    alerts: hqConfigSchema.shape.alerts.parse({ webhooks: [{ url: receiver.url, secret }], allowPrivateTargets: true }),
  })
  t.teardown(() => hq.stop())
  await until(() => hq.ingest.status().subscribed, 'subscribed')
  // A window of 6 published changes: 2 orders.
  const site = await fleetSite('small', broker.url, { replayWindow: 6 })
  site.fleet.start()
  t.teardown(() => site.fleet.stop())
  await site.orders(2)
  await until(async () => (await history()) === 2, 'the first orders')
  hqLink.close()
  await broker.stop()
  await broker.start()
  await until(() => site.fleet.status().state === 'connected', 'the site back')
  // 5 orders (changes 7..21) no one receives; the window keeps the last 6 published.
  await site.orders(5)
  await until(() => site.fleet.status().backlog === 0, 'published')
  hqLink.open()
  await until(() => hq.ingest.status().subscribed, 'HQ back')
  await site.orders(1)
  await until(async () => (await db.query(`SELECT 1 FROM hq_alerts WHERE kind = 'lost'`)).rowCount === 1, 'a lost alert')
  const [alert] = (await db.query<{ detail: string }>(`SELECT detail FROM hq_alerts WHERE kind = 'lost'`)).rows
  const range = /^changes after seq (\d+) through seq (\d+) are lost: the site could no longer replay them$/.exec(alert!.detail)
  t.ok(range, alert!.detail)
  const [after, through] = [Number(range![1]), Number(range![2])]
  t.equal(after, 6, 'from the last change HQ had')
  // When HQ asks, the window holds 19..24 (16..21 if asked before the last order was published).
  t.ok(through === 18 || through === 15, `up to what the window no longer held (${through})`)
  // Everything above the lost range arrives: the window's part by replay, the rest as usual.
  await until(
    async () => Number((await db.query<{ chain: string }>(`SELECT chain_seq AS chain FROM hq_site_chains WHERE site_id = 'small'`)).rows[0]!.chain) === 24,
    'the chain goes on to the last change',
  )
  const kept = site.recorded.filter((m) => m.kind === 'history' && m.seq > through).map((m) => (m.kind === 'history' ? m.uuid : ''))
  const { rows } = await db.query<{ uuid: string }>(`SELECT uuid FROM hq_history WHERE site_id = 'small' AND seq > $1 ORDER BY seq`, [through])
  t.same(
    rows.map((r) => r.uuid),
    kept,
    'every order cleared after the lost range',
  )
  await until(() => receiver.posts().some((p) => p.type === 'HQ_ALERT_RAISED' && p.alert.kind === 'lost'), 'the signed webhook')
  t.match(
    receiver.posts().find((p) => p.alert?.kind === 'lost'),
    { type: 'HQ_ALERT_RAISED', alert: { siteId: 'small', kind: 'lost', detail: alert!.detail } },
  )
  t.ok(
    receiver.requests.every((r) => String(r.headers['webhook-signature']).startsWith('v1,')),
    'signed',
  )
})

t.test('a request that cannot get out (broker away) is sent again after retrySeconds', async (t) => {
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url: postgresUrl, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const logs = memoryLogger('warn')
  // The timer off: the test runs the rounds itself.
  const hq = await startHq({
    config: hqConfig({
      postgresUrl,
      brokerUrl: broker.url,
      instanceId: 'na',
      port: 0,
      host: '127.0.0.1',
      replay: { enabled: false, graceSeconds: 0, retrySeconds: 1, checkIntervalMs: 100 },
    }),
    log: logs.log,
  })
  t.teardown(() => hq.stop())
  await until(() => hq.ingest.status().subscribed, 'subscribed')
  const site = new SimulatedSite('far', { prefix })
  const messages = Array.from({ length: 3 }, (_, i) => site.fullOrder(Date.parse('2026-11-25T11:00:00Z') + i * 60_000, 60, 120)).flat()
  const client = await publisher(broker.url)
  await publishAll(
    client,
    messages.filter((m) => m.seq !== 4),
  )
  await client.endAsync(true)
  await until(
    async () => (await db.query(`SELECT 1 FROM hq_site_chains WHERE site_id = 'far' AND gap_since IS NOT NULL AND chain_seq = 3`)).rowCount === 1,
    'the hole seen',
  )
  await broker.stop()
  await until(() => !hq.ingest.status().connected, 'the broker away')
  await hq.checkReplays()
  t.ok(
    logs.lines().some((line) => line.msg === 'hq replay: request not sent' && line.siteId === 'far'),
    'not sent, said so',
  )
  await broker.start()
  await until(() => hq.ingest.status().subscribed, 'back')
  const asked = await publisher(broker.url)
  t.teardown(() => asked.endAsync(true))
  const requests: string[] = []
  asked.on('message', (_topic, payload) => requests.push(String(payload)))
  await asked.subscribeAsync(`${prefix}/far/replay`, { qos: 1 })
  await new Promise((resolve) => setTimeout(resolve, 1100))
  await hq.checkReplays()
  await until(() => requests.length === 1, 'asked again')
  t.same(JSON.parse(requests[0]!), { from: 4, to: 9 })
  const { rows } = await db.query<{ n: number }>(`SELECT replay_requests AS n FROM hq_site_chains WHERE site_id = 'far'`)
  t.equal(rows[0]!.n, 2)
})
