// GET /api/v2/metrics: Prometheus' text for a read token, with the figures the running
// gateway holds (orders, requests, webhooks, radio, backups, clock), and text promtool accepts.
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { parseExposition, promtoolCheckMetrics, sampleValue } from '../../helpers/prometheus.ts'

t.test('a read token gets the figures in the text format; none gets 401', async (t) => {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  t.teardown(() => gw.services.webhooks.close())
  const admin = await gw.issueToken()
  const read = (await gw.services.tokens.issue('prometheus', 'read')).token
  t.equal((await gw.call('GET /api/v2/metrics')).status, 401, 'no token: 401')

  await gw.services.settings.update({ targetTimeDefault: 60 })
  for (const name of [1, 2, 3]) t.equal((await gw.json('POST /api/v2/activeorders', { token: admin, body: { name, orderType: 'TO_GO' } })).status, 200)
  await gw.clock.advance(61_000)
  await gw.json('POST /api/v2/activeorders', { token: admin, body: { name: 4, orderType: 'TO_GO', locationName: 7 } })
  t.equal((await gw.json('GET /api/v2/activeorders/999', { token: admin })).status, 404)
  gw.services.webhooks.attempts.delivered += 2
  gw.services.webhooks.attempts.failed += 1
  await gw.services.backupRecord.save({ at: Date.parse('2026-11-22T03:00:00Z'), trigger: 'schedule', ok: true, file: 'b.tar', bytes: 10, reason: null })

  const response = await gw.call('GET /api/v2/metrics', { token: read })
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const text = await response.text()
  const lint = promtoolCheckMetrics(text)
  t.equal(lint.status, 0, `promtool check metrics accepts it ${lint.output}`)
  const samples = parseExposition(text)
  t.equal(sampleValue(samples, 'tracker_gateway_orders_active', { state: 'started' }), 3)
  t.equal(sampleValue(samples, 'tracker_gateway_orders_active', { state: 'located' }), 1)
  t.equal(sampleValue(samples, 'tracker_gateway_orders_late'), 3, 'the three started before the target passed')
  t.equal(sampleValue(samples, 'tracker_gateway_target_seconds'), 60)
  t.equal(sampleValue(samples, 'tracker_gateway_http_requests_total', { method: 'POST', route: '/api/v2/activeorders', status: '200' }), 4)
  t.equal(sampleValue(samples, 'tracker_gateway_http_requests_total', { method: 'GET', route: '/api/v2/activeorders/:id', status: '404' }), 1)
  t.equal(sampleValue(samples, 'tracker_gateway_http_requests_total', { method: 'GET', route: '/api/v2/metrics', status: '401' }), 1)
  // Durations per route template (a histogram): the four creations, the 404 under /:id.
  const created = { method: 'POST', route: '/api/v2/activeorders' }
  t.equal(sampleValue(samples, 'tracker_gateway_http_request_duration_seconds_count', created), 4)
  t.equal(sampleValue(samples, 'tracker_gateway_http_request_duration_seconds_bucket', { ...created, le: '+Inf' }), 4)
  t.ok(sampleValue(samples, 'tracker_gateway_http_request_duration_seconds_sum', created)! > 0)
  t.equal(sampleValue(samples, 'tracker_gateway_http_request_duration_seconds_count', { method: 'GET', route: '/api/v2/activeorders/:id' }), 1)
  t.notOk(
    samples.some((sample) => sample.labels.route?.includes('999')),
    'a route template, never a URL',
  )
  t.equal(sampleValue(samples, 'tracker_gateway_webhook_deliveries_total'), 2)
  t.equal(sampleValue(samples, 'tracker_gateway_webhook_failures_total'), 1)
  t.equal(sampleValue(samples, 'tracker_gateway_radio_up', { kind: 'simulated' }), 1)
  t.equal(sampleValue(samples, 'tracker_gateway_backup_last_success_timestamp_seconds'), Date.parse('2026-11-22T03:00:00Z') / 1000)
  t.equal(sampleValue(samples, 'tracker_gateway_backup_last_failed'), 0)
  t.equal(sampleValue(samples, 'tracker_gateway_websocket_clients'), 0)
  t.equal(sampleValue(samples, 'tracker_gateway_fleet_connected', { state: 'disabled' }), 0)
  t.ok((sampleValue(samples, 'process_resident_memory_bytes') ?? 0) > 1e6)

  await gw.radio.stop()
  const after = parseExposition(await (await gw.call('GET /api/v2/metrics', { token: read })).text())
  t.equal(sampleValue(after, 'tracker_gateway_radio_up', { kind: 'simulated' }), 0, 'the radio stopped: 0')
  t.equal(sampleValue(after, 'tracker_gateway_http_requests_total', { method: 'GET', route: '/api/v2/metrics', status: '200' }), 1, 'the last scrape counted')
})
