// Alerts against a real PostgreSQL: a site offline too long, its radio down, a growing backlog; raised and
// cleared once whichever instances evaluate together; sent as signed webhooks (Standard
// Webhooks, verified here with the reference library) through a retried outbox.
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { SimulatedSite } from '../../../bench/hq-sites.ts'
import { AlertWebhooks } from '../../../lib/hq/alert-webhooks.ts'
import { evaluateAlerts, openAlerts } from '../../../lib/hq/alerts.ts'
import { purgeTombstones } from '../../../lib/hq/maintenance.ts'
import { applyBatch } from '../../../lib/hq/apply.ts'
import { hqConfigSchema } from '../../../lib/hq/config.ts'
import { parseSiteMessage, type SiteMessage } from '../../../lib/hq/messages.ts'
import { openDatabase } from '../../../lib/store/postgres.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { startReceiver } from '../../helpers/webhooks.ts'
import { freshDatabase, prefix } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`

function parsed(...messages: { topic: string; payload: string }[]): SiteMessage[] {
  return messages.map((m) => {
    const result = parseSiteMessage(prefix, m.topic, m.payload)
    if (!result.ok) throw new Error(result.reason)
    return result.message
  })
}

t.test('offline too long and a growing backlog: raised once, shown, sent signed, cleared', async (t) => {
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  const { url, db } = await freshDatabase(pg)
  const other = openDatabase(url, { max: 2 })
  t.teardown(() => Promise.all([db.close(), other.close()]))
  const alerts = hqConfigSchema.shape.alerts.parse({
    offlineMinutes: 5,
    backlogThreshold: 100,
    webhooks: [{ url: receiver.url, secret }],
    allowPrivateTargets: true,
  })
  const apply = (...m: SiteMessage[]) => db.transaction((tx) => applyBatch(tx, m, { timezoneOf: () => 'UTC', targetSeconds: 600 }))
  const paris = new SimulatedSite('paris-11', { prefix, startedAt: Date.now() - 60_000 })
  const lyon = new SimulatedSite('lyon-2', { prefix, startedAt: Date.now() - 60_000 })
  const nice = new SimulatedSite('nice-1', { prefix, startedAt: Date.now() - 60_000 })
  await apply(...parsed(paris.status(false, { reason: 'connection lost', at: Date.now() - 1000 }), lyon.status(true, { backlog: 50 }), nice.status(true)))
  await apply(...parsed(lyon.status(true, { backlog: 400 })))
  // Paris went offline just now: not yet an alert. Lyon's backlog grows past the threshold.
  const first = await db.transaction((tx) => evaluateAlerts(tx, alerts))
  t.same(
    first.raised.map((a) => [a.siteId, a.kind]),
    [['lyon-2', 'backlog']],
  )
  t.match(first.raised[0], { detail: 'backlog 400 changes, was 50', clearedAt: null })

  // Ten minutes later (the row says so), two instances evaluate at the same moment.
  await db.query(`UPDATE hq_sites SET status_received_at = now() - interval '10 minutes' WHERE site_id = 'paris-11'`)
  const [x, y] = await Promise.all([db.transaction((tx) => evaluateAlerts(tx, alerts)), other.transaction((tx) => evaluateAlerts(tx, alerts))])
  t.same(
    [...x.raised, ...y.raised].map((a) => [a.siteId, a.kind]),
    [['paris-11', 'offline']],
    'raised once',
  )
  t.match([...x.raised, ...y.raised][0].detail, /^offline since .* \(connection lost\)$/)
  t.same(
    (await openAlerts(db)).map((a) => `${a.siteId}:${a.kind}`),
    ['lyon-2:backlog', 'paris-11:offline'],
  )

  // The receiver is down at first: the entries stay and are tried again later.
  receiver.respond = () => 503
  const webhooks = new AlertWebhooks(db, alerts, memoryLogger('error').log)
  t.teardown(() => webhooks.close())
  t.equal(await webhooks.deliverDue(), 0)
  const waiting = await db.query<{ attempts: number; last_error: string; due: boolean }>(
    'SELECT attempts, last_error, next_at > now() AS due FROM hq_webhook_outbox ORDER BY id',
  )
  t.same(waiting.rows, [
    { attempts: 1, last_error: 'HTTP 503', due: true },
    { attempts: 1, last_error: 'HTTP 503', due: true },
  ])
  receiver.respond = () => 200
  await db.query('UPDATE hq_webhook_outbox SET next_at = now()')
  t.equal(await webhooks.deliverDue(), 2)
  t.equal((await db.query('SELECT * FROM hq_webhook_outbox')).rowCount, 0, 'delivered entries leave the outbox')
  const delivered = receiver.requests.filter((r) => r.method === 'POST').slice(-2)
  const verifier = new Webhook(secret)
  for (const request of delivered) {
    t.doesNotThrow(() => verifier.verify(request.body, request.headers as Record<string, string>), "signed with the URL's secret")
  }
  t.same(
    delivered.map((r) => JSON.parse(r.body)).map((b) => [b.type, b.alert.siteId, b.alert.kind]),
    [
      ['HQ_ALERT_RAISED', 'lyon-2', 'backlog'],
      ['HQ_ALERT_RAISED', 'paris-11', 'offline'],
    ],
  )
  t.throws(
    () => new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(delivered[0]!.body, delivered[0]!.headers as Record<string, string>),
    'another secret does not verify',
  )

  // Paris is back; Lyon's backlog shrinks: both alerts clear, once, and say so.
  await apply(...parsed(paris.status(true), lyon.status(true, { backlog: 10 })))
  const cleared = await db.transaction((tx) => evaluateAlerts(tx, alerts))
  t.same(cleared.cleared.map((a) => a.siteId).sort(), ['lyon-2', 'paris-11'])
  t.same((await db.transaction((tx) => evaluateAlerts(tx, alerts))).cleared, [], 'cleared once')
  t.same(await openAlerts(db), [])
  t.equal(await webhooks.deliverDue(), 2)
  t.same(
    receiver.requests
      .filter((r) => r.method === 'POST')
      .slice(-2)
      .map((r) => JSON.parse(r.body).type),
    ['HQ_ALERT_CLEARED', 'HQ_ALERT_CLEARED'],
  )

  // Silent: no message at all for longer than offlineMinutes counts as offline too.
  await db.query(`UPDATE hq_sites SET last_seen = now() - interval '1 hour' WHERE site_id = 'nice-1'`)
  const silent = await db.transaction((tx) => evaluateAlerts(tx, alerts))
  t.match(silent.raised, [{ siteId: 'nice-1', kind: 'offline', detail: /^nothing heard since / }])
})

t.test('radio down too long: raised once for an online site, held while it is offline, cleared once its radio is up', async (t) => {
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  const { url, db } = await freshDatabase(pg)
  const other = openDatabase(url, { max: 2 })
  t.teardown(() => Promise.all([db.close(), other.close()]))
  const alerts = hqConfigSchema.shape.alerts.parse({ radioDownMinutes: 3, webhooks: [{ url: receiver.url, secret }], allowPrivateTargets: true })
  const apply = (...m: SiteMessage[]) => db.transaction((tx) => applyBatch(tx, m, { timezoneOf: () => 'UTC', targetSeconds: 600 }))
  const evaluate = (on = db) => on.transaction((tx) => evaluateAlerts(tx, alerts))
  const startedAt = Date.now() - 60_000
  const paris = new SimulatedSite('paris-11', { prefix, startedAt })
  const lyon = new SimulatedSite('lyon-2', { prefix, startedAt })
  const nice = new SimulatedSite('nice-1', { prefix, startedAt })
  const older = new SimulatedSite('rome-1', { prefix, startedAt })
  await apply(
    ...parsed(paris.status(true, { radioUp: false }), lyon.status(true, { radioUp: false }), nice.status(true, { radioUp: true }), older.status(true)),
  )
  t.same((await evaluate()).raised, [], 'down just now: not yet an alert')

  // Lyon's gateway stops before the alert is due: offline, its radio last known down.
  await apply(...parsed(lyon.status(false, { reason: 'stopped' })))
  // Ten minutes later (the rows say so), two instances evaluate at the same moment.
  await db.query(`UPDATE hq_sites SET radio_down_since = now() - interval '10 minutes' WHERE radio_down_since IS NOT NULL`)
  const [x, y] = await Promise.all([evaluate(db), evaluate(other)])
  const raised = [...x.raised, ...y.raised]
  t.same(
    raised.map((a) => [a.siteId, a.kind]),
    [['paris-11', 'radio']],
    'raised once, for the online site only',
  )
  t.match(raised[0], { detail: /^radio down since \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, clearedAt: null })
  t.same(
    (await openAlerts(db)).map((a) => `${a.siteId}:${a.kind}`),
    ['paris-11:radio'],
  )

  // Sent, signed, like every alert.
  const webhooks = new AlertWebhooks(db, alerts, memoryLogger('error').log)
  t.teardown(() => webhooks.close())
  t.equal(await webhooks.deliverDue(), 1)
  const sent = receiver.requests.filter((r) => r.method === 'POST').at(-1)!
  t.doesNotThrow(() => new Webhook(secret).verify(sent.body, sent.headers as Record<string, string>))
  t.match(JSON.parse(sent.body), { type: 'HQ_ALERT_RAISED', alert: { siteId: 'paris-11', kind: 'radio', detail: /^radio down since / } })

  // Paris goes offline: its radio is not known to be back, so the alert holds; nor when
  // its gateway starts again with the radio still down.
  await apply(...parsed(paris.status(false, { reason: 'connection lost', at: startedAt })))
  t.same((await evaluate()).cleared, [], 'offline does not clear it')
  const restarted = new SimulatedSite('paris-11', { prefix })
  await apply(...parsed(restarted.status(true, { radioUp: false })))
  t.same((await evaluate()).cleared, [], 'back, radio still down: held')
  t.same(
    (await openAlerts(db)).map((a) => `${a.siteId}:${a.kind}`),
    ['paris-11:radio'],
  )

  // Its radio up: cleared once, and said so.
  await apply(...parsed(restarted.status(true, { radioUp: true })))
  const [cx, cy] = await Promise.all([evaluate(db), evaluate(other)])
  t.same(
    [...cx.cleared, ...cy.cleared].map((a) => [a.siteId, a.kind]),
    [['paris-11', 'radio']],
    'cleared once',
  )
  t.same(await openAlerts(db), [])
  t.equal(await webhooks.deliverDue(), 1)
  t.match(JSON.parse(receiver.requests.filter((r) => r.method === 'POST').at(-1)!.body), {
    type: 'HQ_ALERT_CLEARED',
    alert: { siteId: 'paris-11', kind: 'radio' },
  })

  // Lyon comes back with its radio still down: now it is raised (down since it came back).
  await apply(...parsed(new SimulatedSite('lyon-2', { prefix }).status(true, { radioUp: false })))
  t.same((await evaluate()).raised, [], 'a new run: down since it came back')
  await db.query(`UPDATE hq_sites SET radio_down_since = now() - interval '4 minutes' WHERE site_id = 'lyon-2'`)
  t.same(
    (await evaluate()).raised.map((a) => [a.siteId, a.kind]),
    [['lyon-2', 'radio']],
  )
})

t.test('an entry for a URL no longer configured is dropped, not sent', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  await db.query(`INSERT INTO hq_webhook_outbox (url, message_id, body) VALUES ('http://127.0.0.1:9/gone', 'msg_1', '{}')`)
  const webhooks = new AlertWebhooks(db, hqConfigSchema.shape.alerts.parse({}), memoryLogger('error').log)
  t.teardown(() => webhooks.close())
  t.equal(await webhooks.deliverDue(), 0)
  t.equal((await db.query('SELECT * FROM hq_webhook_outbox')).rowCount, 0)
})

t.test('tombstones of cleared orders are purged after two days, open orders never', async (t) => {
  const { db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const insert = (uuid: string, state: string, age: string) =>
    db.query(
      `INSERT INTO hq_live_orders (site_id, uuid, seq, name, order_type, state, created_at, state_started, change)
       VALUES ('s', $1, 1, '1', 'ON_PREMISE', $2, now() - $3::interval, now() - $3::interval, 'X')`,
      [uuid, state, age],
    )
  await insert('old-cleared', 'cleared', '3 days')
  await insert('new-cleared', 'cleared', '1 day')
  await insert('old-open', 'started', '5 days')
  t.equal(await purgeTombstones(db), 1)
  t.same(
    (await db.query('SELECT uuid FROM hq_live_orders ORDER BY uuid')).rows.map((r) => r.uuid),
    ['new-cleared', 'old-open'],
  )
})
