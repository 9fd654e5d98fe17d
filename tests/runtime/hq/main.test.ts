// An HQ instance end to end: its API over what the sites published, its tokens, its OpenAPI
// document and board, and live notices that reach a board on the other instance.
import t from 'tap'
import WebSocket from 'ws'
import { SimulatedSite } from '../../../bench/hq-sites.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { until } from '../../helpers/until.ts'
import { parseExposition, promtoolCheckMetrics, sampleValue } from '../../helpers/prometheus.ts'
import { prefix, publishAll, publisher } from '../../lib/hq/fixtures.ts'
import { hqApi, startChain } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

t.test("API: sites, a site's open orders, statistics; tokens; errors", async (t) => {
  const chain = await startChain(t, pg, { targetSeconds: 300 })
  const api = hqApi(chain.url(chain.b), chain.token)
  const client = await publisher(chain.broker.url)
  t.teardown(() => client.endAsync(true))
  const now = Date.now()
  const paris = new SimulatedSite('paris-11', { prefix, startedAt: now - 3_600_000 })
  const lyon = new SimulatedSite('lyon-2', { prefix, startedAt: now - 3_600_000 })
  // Paris: two finished orders (2 and 8 minutes to table), one waiting for 10 minutes (late).
  // Both started today (UTC, the chain's timezone here) even just after midnight.
  const first = Math.max(now - 1_800_000, Math.floor(now / 86_400_000) * 86_400_000 + 60_000)
  const messages = [paris.status(true, { at: now - 1000 }), ...paris.fullOrder(first, 120, 300), ...paris.fullOrder(first + 300_000, 480, 300)]
  const waiting = paris.create(now - 600_000)
  messages.push(...waiting.messages, lyon.status(false, { at: now - 1000, reason: 'stopped' }))
  await publishAll(client, messages)
  await until(async () => (await api('/api/hq/sites')).body.sites?.length === 2, 'both sites')

  t.match(await api('/api/hq', {}), { status: 200, body: { status: 200, returnCode: 1, instanceId: 'b' } }, 'the liveness route is open')
  t.match(await api('/api/hq/sites', {}), { status: 401, body: { returnCode: -2 } }, 'no token: 401')
  t.match(await api('/api/hq/sites', { authorization: 'Token x' }), { status: 400, body: { returnCode: -1 } }, 'malformed: 400')
  t.match(await api('/api/hq/sites', { authorization: `Bearer hq_${'0'.repeat(48)}` }), { status: 401, body: { returnCode: -2 } }, 'unknown token: 401')

  await until(async () => (await api('/api/hq/sites/paris-11')).body.site?.today.orders === 2, 'paris figures')
  const { body } = await api('/api/hq/sites')
  t.match(body, { status: 200, returnCode: 2 })
  const [lyonRow, parisRow] = body.sites
  t.match(lyonRow, { siteId: 'lyon-2', connection: 'offline', reason: 'stopped', activeOrders: 0 })
  t.match(parisRow, { siteId: 'paris-11', connection: 'online', version: '0.1.0', activeOrders: 1, lateNow: 1, lastSeq: 7, targetSeconds: 300 })
  t.same(parisRow.today, { orders: 2, located: 2, averageToTableSeconds: 300, late: 1 })

  const orders = await api('/api/hq/sites/paris-11/orders')
  t.match(orders, { status: 200, body: { returnCode: 4, siteId: 'paris-11' } })
  t.equal(orders.body.orders.length, 1)
  t.match(orders.body.orders[0], { uuid: waiting.order.uuid, state: 'started', late: true, orderType: 'ON_PREMISE' })
  t.ok(orders.body.orders[0].elapsedSeconds >= 600)
  t.match(await api('/api/hq/sites/nowhere/orders'), { status: 404, body: { returnCode: -60 } })
  t.match(await api('/api/hq/sites/nowhere'), { status: 404, body: { returnCode: -60 } })

  const chainStats = (await api('/api/hq/statistics')).body
  t.match(chainStats, { returnCode: 5, statistics: { period: 'today', orders: 2, located: 2, averageToTableSeconds: 300, late: 1, site: null } })
  t.same(
    chainStats.statistics.sites.map((s: any) => s.siteId),
    ['paris-11'],
  )
  t.equal(
    chainStats.statistics.hours.reduce((n: number, h: any) => n + h.orders, 0),
    2,
  )
  const week = (await api('/api/hq/statistics?period=week&site=paris-11')).body.statistics
  t.match(week, { period: 'week', site: 'paris-11', orders: 2, sites: [] })
  t.ok(week.from <= week.to)
  const month = (await api('/api/hq/statistics?period=month')).body.statistics
  t.match(month, { period: 'month', basis: 'chain-calendar', orders: 2, from: `${month.to.slice(0, 8)}01` }, 'this month, from its first day')
  t.match(await api('/api/hq/statistics?period=year'), { status: 400, body: { returnCode: -61 } })
  const csv = await fetch(`${chain.url(chain.b)}/api/hq/statistics?period=month&format=csv`, { headers: { authorization: `Bearer ${chain.token}` } })
  t.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8')
  const csvLines = (await csv.text()).trimEnd().split('\r\n')
  t.equal(csvLines[0], 'period,from,to,site,figure,key,orders,located,averageToTableSeconds,late,targetSeconds')
  t.match(csvLines[1], /^month,[\d-]+,[\d-]+,,total,,2,2,300,1,300$/)
  t.ok(
    csvLines.some((line) => /,site,paris-11,2,2,300,1,300$/.test(line)),
    'a line per site',
  )
  t.match(await api('/api/hq/statistics?format=xml'), { status: 400, body: { returnCode: -65 } })
  t.match(await api('/api/hq/statistics?site=a%2Fb'), { status: 400, body: { returnCode: -62 } })
  t.match(await api('/api/hq/alerts'), { status: 200, body: { returnCode: 6, alerts: [] } })
  // Lyon has been offline for longer than alerts.offlineMinutes: the next check raises it.
  await chain.a.db.query(`UPDATE hq_sites SET status_received_at = now() - interval '1 hour' WHERE site_id = 'lyon-2'`)
  await chain.a.checkAlerts()
  t.match(await api('/api/hq/alerts'), { status: 200, body: { alerts: [{ siteId: 'lyon-2', kind: 'offline', detail: /\(stopped\)$/ }] } })
  t.match(await api('/api/hq/instance'), { status: 200, body: { returnCode: 7, instanceId: 'b', ingest: { connected: true, subscribed: true } } })

  t.match(await api('/api/hq/nothing'), { status: 404, body: { returnCode: -5 } })

  // Prometheus' text: the chain as PostgreSQL holds it (from either instance), and what the
  // instance that ingested counted of each site.
  t.equal((await fetch(`${chain.url(chain.a)}/api/hq/metrics`)).status, 401, 'metrics need an HQ token')
  const scrape = async (instance: typeof chain.a) => {
    const response = await fetch(`${chain.url(instance)}/api/hq/metrics`, { headers: { authorization: `Bearer ${chain.token}` } })
    t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
    return response.text()
  }
  const text = await scrape(chain.a)
  const lint = promtoolCheckMetrics(text)
  t.equal(lint.status, 0, `promtool check metrics accepts it ${lint.output}`)
  const samples = parseExposition(text)
  t.equal(sampleValue(samples, 'hq_site_online', { site: 'paris-11' }), 1)
  t.equal(sampleValue(samples, 'hq_site_online', { site: 'lyon-2' }), 0)
  t.equal(sampleValue(samples, 'hq_site_orders_active', { site: 'paris-11' }), 1)
  t.equal(sampleValue(samples, 'hq_site_orders_late', { site: 'paris-11' }), 1)
  t.equal(sampleValue(samples, 'hq_site_last_seq', { site: 'paris-11' }), 7)
  t.ok(Math.abs(sampleValue(samples, 'hq_site_last_seen_timestamp_seconds', { site: 'paris-11' })! - Date.now() / 1000) < 120, 'paris last seen now')
  t.equal(sampleValue(samples, 'hq_alert_open', { site: 'lyon-2', kind: 'offline' }), 1)
  t.equal(sampleValue(samples, 'hq_alerts_open', { kind: 'offline' }), 1)
  t.equal(
    sampleValue(samples, 'hq_site_ingest_applied_total', { site: 'paris-11' }),
    messages.length - 1,
    "every paris message a committed (lyon's status aside)",
  )
  t.ok(sampleValue(samples, 'hq_site_ingest_lag_seconds', { site: 'lyon-2' })! < 60, "lyon's status, sent a second before, committed since")
  t.equal(sampleValue(samples, 'hq_ingest_subscribed', { hq_instance: 'a' }), 1)
  t.equal(sampleValue(samples, 'hq_ingest_applied_total', { hq_instance: 'a', kind: 'statuses' }), 2)
  const other = parseExposition(await scrape(chain.b))
  t.equal(sampleValue(other, 'hq_site_orders_late', { site: 'paris-11' }), 1, 'b shows the chain from PostgreSQL')
  t.equal(sampleValue(other, 'hq_site_ingest_applied_total', { site: 'paris-11' }), undefined, 'b ingested nothing of it')
  // Request durations per route template: a's one refused scrape (this one is counted once answered).
  const scrapes = { hq_instance: 'a', method: 'GET', route: '/api/hq/metrics' }
  t.equal(sampleValue(samples, 'hq_http_request_duration_seconds_count', scrapes), 1)
  t.equal(sampleValue(samples, 'hq_http_request_duration_seconds_bucket', { ...scrapes, le: '+Inf' }), 1)
  t.ok(sampleValue(samples, 'hq_http_request_duration_seconds_sum', scrapes)! > 0)
  t.equal(sampleValue(other, 'hq_http_request_duration_seconds_count', { hq_instance: 'b', route: '/api/hq/instance' }), 1, "b's API calls, by route")
  t.ok(sampleValue(other, 'hq_http_request_duration_seconds_count', { hq_instance: 'b', route: 'other' })! >= 1, 'an unknown path: other')
  t.notOk(
    other.some((sample) => sample.labels.route?.includes('paris-11')),
    'a route template, never a URL',
  )

  // A site's history and alert history, and their CSV.
  const history = (await api('/api/hq/sites/paris-11/history')).body
  t.match(history, { returnCode: 9, siteId: 'paris-11' })
  t.same(
    history.orders.map((o: any) => [o.orderType, o.toTableSeconds]),
    [
      ['ON_PREMISE', 480],
      ['ON_PREMISE', 120],
    ],
    'newest first, with the seconds to table',
  )
  t.equal((await api('/api/hq/sites/paris-11/history?limit=1')).body.orders.length, 1)
  t.same((await api('/api/hq/sites/paris-11/history?from=2020-01-01&to=2020-01-31')).body.orders, [], 'nothing cleared then')
  const historyCsv = await fetch(`${chain.url(chain.b)}/api/hq/sites/paris-11/history?format=csv`, { headers: { authorization: `Bearer ${chain.token}` } })
  const historyLines = (await historyCsv.text()).trimEnd().split('\r\n')
  t.equal(historyLines[0], 'uuid,name,orderType,locationName,orderStarted,orderLocated,orderCleared,toTableSeconds,localDay,seq')
  t.equal(historyLines.length, 3)
  t.match(historyLines[1], new RegExp(`^${history.orders[0].uuid},`))
  t.match(await api('/api/hq/sites/paris-11/history?from=2026-02-30'), { status: 400, body: { returnCode: -63 } })
  t.match(await api('/api/hq/sites/paris-11/history?from=2026-03-02&to=2026-03-01'), { status: 400, body: { returnCode: -63 } })
  t.match(await api('/api/hq/sites/paris-11/history?from=2024-01-01&to=2026-01-01'), { status: 400, body: { returnCode: -63 } })
  t.match(await api('/api/hq/sites/paris-11/history?limit=0'), { status: 400, body: { returnCode: -64 } })
  t.match(await api('/api/hq/sites/nowhere/history'), { status: 404, body: { returnCode: -60 } })
  const lyonAlerts = (await api('/api/hq/sites/lyon-2/alerts')).body
  t.match(lyonAlerts, { returnCode: 10, siteId: 'lyon-2', alerts: [{ kind: 'offline', clearedAt: null }] })
  t.equal(lyonAlerts.alerts.length, 1)
  await publishAll(client, [lyon.status(true)])
  await until(async () => (await api('/api/hq/sites/lyon-2')).body.site?.connection === 'online', 'lyon back')
  await chain.a.checkAlerts()
  const after = (await api('/api/hq/sites/lyon-2/alerts')).body.alerts
  t.equal(after.length, 1, 'the same alert, now cleared')
  t.ok(after[0].clearedAt, 'cleared')
  t.same((await api('/api/hq/sites/paris-11/alerts')).body.alerts, [])
  const alertsCsv = await fetch(`${chain.url(chain.b)}/api/hq/sites/lyon-2/alerts?format=csv`, { headers: { authorization: `Bearer ${chain.token}` } })
  t.match(await alertsCsv.text(), /^id,siteId,kind,detail,raisedAt,clearedAt\r\n\d+,lyon-2,offline,[^\r]*\r\n$/)
  t.match(await api('/api/hq/sites/lyon-2/alerts?limit=x'), { status: 400, body: { returnCode: -64 } })
  t.match(await api('/api/hq/sites/nowhere/alerts'), { status: 404, body: { returnCode: -60 } })
})

t.test('the OpenAPI document and the board are served', async (t) => {
  const chain = await startChain(t, pg)
  const base = chain.url(chain.a)
  const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as any
  t.equal(doc.info.title, 'Tracker Gateway HQ API')
  t.same(Object.keys(doc.paths).sort(), [
    '/api/hq',
    '/api/hq/alerts',
    '/api/hq/instance',
    '/api/hq/live',
    '/api/hq/metrics',
    '/api/hq/releases',
    '/api/hq/releases/{release}/archive',
    '/api/hq/rollouts',
    '/api/hq/rollouts/{rollout}',
    '/api/hq/rollouts/{rollout}/cancel',
    '/api/hq/rollouts/{rollout}/pause',
    '/api/hq/rollouts/{rollout}/resume',
    '/api/hq/sites',
    '/api/hq/sites/{site}',
    '/api/hq/sites/{site}/alerts',
    '/api/hq/sites/{site}/history',
    '/api/hq/sites/{site}/orders',
    '/api/hq/statistics',
    '/api/openapi.json',
  ])
  t.match(doc.paths['/api/hq/sites/{site}/orders'].get.responses, { '401': {}, '404': {} })
  t.ok(doc.paths['/api/hq/metrics'].get.responses['200'].content['text/plain'], 'metrics: documented as text')
  const upload = doc.paths['/api/hq/releases'].post
  t.equal(upload['x-scope'], 'admin', 'uploading a release needs an admin HQ token')
  t.match(upload.responses, {
    '201': { content: { 'application/json': { schema: { properties: { release: { properties: { sha256: {} } } } } } } },
    '422': {},
    '403': {},
  })
  t.ok(doc.paths['/api/hq/rollouts'].post.requestBody, 'the rollout body is documented')
  const page = await fetch(`${base}/`)
  t.equal(page.status, 200)
  t.match(await page.text(), /Chain board/)
  t.match(page.headers.get('content-security-policy'), /script-src 'self'/)
  t.equal((await fetch(`${base}/assets/hq.js`)).status, 200)
})

t.test('a change ingested by one instance reaches a live client of the other', async (t) => {
  const chain = await startChain(t, pg)
  const refused = new WebSocket(`ws://127.0.0.1:${chain.b.port}/api/hq/live`, ['hq', `token.hq_${'f'.repeat(48)}`])
  const status = await new Promise<number | undefined>((resolve) =>
    refused.on('unexpected-response', (_req, res) => resolve(res.statusCode)).on('open', () => resolve(undefined)),
  )
  t.equal(status, 401, 'a wrong token is refused')
  const live = new WebSocket(`ws://127.0.0.1:${chain.b.port}/api/hq/live`, ['hq', `token.${chain.token}`])
  t.teardown(() => live.terminate())
  const notices: any[] = []
  live.on('message', (data) => notices.push(JSON.parse(String(data))))
  await until(() => notices.some((n) => n.type === 'hello'), 'hello')
  const client = await publisher(chain.broker.url)
  t.teardown(() => client.endAsync(true))
  const site = new SimulatedSite('nice-1', { prefix })
  await publishAll(client, site.create().messages)
  await until(() => notices.some((n) => n.type === 'changed' && n.sites.includes('nice-1')), 'a notice on instance b')
  t.equal(chain.b.ingest.status().applied.batches, 0, 'b ingested nothing: the notice came through PostgreSQL')
  t.ok(chain.a.ingest.status().applied.events >= 1)
})
