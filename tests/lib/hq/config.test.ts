// hq.config.json: defaults, refusals naming the key, files relative to the config file.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { HqConfigError, loadHqConfig, parseHqConfig, siteTimezone } from '../../../lib/hq/config.ts'

const minimal = { postgresUrl: 'postgres://hq@db/hq', broker: { url: 'mqtts://mqtt.example:8883' }, instanceId: 'hq-1' }

t.test('defaults', async (t) => {
  const config = parseHqConfig(minimal)
  t.match(config, { port: 8100, topicPrefix: 'tracker-gateway', shareGroup: 'hq', shared: false, batchSize: 500, timezone: 'UTC', targetSeconds: 600 })
  t.match(config.alerts, { offlineMinutes: 10, backlogThreshold: 100, webhooks: [], allowPrivateTargets: false })
  t.equal(siteTimezone({ ...config, siteTimezones: { 'lisbon-1': 'Europe/Lisbon' } }, 'lisbon-1'), 'Europe/Lisbon')
  t.equal(siteTimezone(config, 'paris-11'), 'UTC')
})

t.test('refusals name the key', async (t) => {
  t.throws(() => parseHqConfig({ ...minimal, timezone: 'Mars/Olympus' }), { message: /"timezone": must be an IANA timezone/ })
  t.throws(() => parseHqConfig({ ...minimal, instanceId: 'a b' }), HqConfigError)
  t.throws(() => parseHqConfig({ ...minimal, broker: { url: 'mqtt://user:pw@host' } }), { message: /"broker.url"/ })
  t.throws(() => parseHqConfig({ ...minimal, alerts: { webhooks: [{ url: 'https://x.example', secret: 'plain' }] } }), { message: /whsec_/ })
  t.throws(() => parseHqConfig({ ...minimal, broker: { url: 'mqtt://h', extra: 1 } }), { message: /unknown key "broker.extra"/ })
})

t.test('TLS files are relative to the config file', async (t) => {
  const dir = t.testdir({ 'ca.pem': 'x' })
  const file = path.join(dir, 'hq.config.json')
  writeFileSync(file, JSON.stringify({ ...minimal, broker: { ...minimal.broker, ca: 'ca.pem' } }))
  t.equal(loadHqConfig(file, {}, '/').broker.ca, path.join(dir, 'ca.pem'))
  writeFileSync(file, JSON.stringify({ ...minimal, tls: { cert: 'tls/hq.crt', key: '/etc/hq.key' } }))
  t.same(loadHqConfig(file, {}, '/').tls, { cert: path.join(dir, 'tls/hq.crt'), key: '/etc/hq.key' }, "HQ's own HTTPS pair too")
  t.throws(() => parseHqConfig({ ...minimal, tls: { cert: 'hq.crt' } }), { message: /"tls.key"/ }, 'cert and key go together')
  writeFileSync(file, JSON.stringify(minimal))
  t.equal(loadHqConfig(undefined, { HQ_CONFIG: file }, '/').instanceId, 'hq-1')
  t.equal(loadHqConfig(undefined, {}, dir).instanceId, 'hq-1', './hq.config.json')
  t.throws(() => loadHqConfig(undefined, {}, path.join(dir, 'nowhere')), /no hq\.config\.json/)
})
