import t from 'tap'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { ConfigError, parseConfig } from '../../../lib/config.ts'
import { connectionSecrets, fleetConfigSchema, fleetTopics, FleetTlsFileError, hqTrust } from '../../../lib/fleet/config.ts'

t.test('off by default, with a default prefix', async (t) => {
  const config = parseConfig({})
  t.equal(config.fleet.enabled, false)
  t.equal(config.fleet.topicPrefix, 'tracker-gateway')
  t.equal(config.fleet.brokerUrl, undefined)
})

t.test('enabled needs a broker URL, named by its dotted path', async (t) => {
  t.throws(() => parseConfig({ fleet: { enabled: true } }), { name: 'ConfigError', message: /"fleet\.brokerUrl": required when fleet\.enabled/ })
})

t.test('only mqtt:// and mqtts:// brokers', async (t) => {
  t.ok(parseConfig({ fleet: { enabled: true, brokerUrl: 'mqtt://broker.local:1883' } }).fleet.enabled)
  t.ok(parseConfig({ fleet: { enabled: true, brokerUrl: 'mqtts://broker.local' } }).fleet.enabled)
  for (const brokerUrl of ['http://broker.local', 'ws://broker.local', 'mqtt://', 'mqtt://broker/path', 'mqtt://user:secret@broker.local']) {
    t.throws(() => parseConfig({ fleet: { enabled: true, brokerUrl } }), ConfigError, brokerUrl)
  }
})

t.test('site ids and prefixes cannot contain wildcards or break topic levels', async (t) => {
  for (const siteId of ['a/b', 'a+', '#', '']) {
    t.throws(() => parseConfig({ fleet: { siteId } }), { message: /fleet\.siteId/ }, siteId)
  }
  t.equal(parseConfig({ fleet: { topicPrefix: 'chain/eu' } }).fleet.topicPrefix, 'chain/eu')
  for (const topicPrefix of ['/chain', 'chain/', 'a//b', 'chain/+', 'chain/#']) {
    t.throws(() => parseConfig({ fleet: { topicPrefix } }), { message: /fleet\.topicPrefix/ }, topicPrefix)
  }
})

t.test('unknown keys are refused; cert and key go together', async (t) => {
  t.throws(() => parseConfig({ fleet: { broker: 'mqtt://x' } }), { message: /unknown key "fleet\.broker"/ })
  t.throws(() => parseConfig({ fleet: { cert: 'site.crt' } }), { message: /fleet\.key/ })
  t.throws(() => parseConfig({ fleet: { key: 'site.key' } }), { message: /fleet\.cert/ })
})

t.test('topics', async (t) => {
  t.same(fleetTopics('chain', 'site-7'), {
    events: 'chain/site-7/events',
    history: 'chain/site-7/history',
    status: 'chain/site-7/status',
    replay: 'chain/site-7/replay',
    rollout: 'chain/site-7/rollout',
  })
})

t.test('fleet.rollout: defaults, and a window in HH:MM-HH:MM', async (t) => {
  t.same(fleetConfigSchema.parse({}).rollout, { enabled: true, bandwidthKiBps: 512, window: { noActiveOrders: false } })
  t.match(fleetConfigSchema.parse({ rollout: { window: { hours: '23:00-02:30', noActiveOrders: true } } }).rollout.window, {
    hours: '23:00-02:30',
    noActiveOrders: true,
  })
  t.throws(() => fleetConfigSchema.parse({ rollout: { window: { hours: '9-17' } } }), /HH:MM-HH:MM/)
  t.throws(() => fleetConfigSchema.parse({ rollout: { bandwidthKiBps: 0 } }))
})

t.test('connection secrets read the PEM files, relative to the working directory', async (t) => {
  const dir = t.testdir({ 'ca.pem': 'CA', 'site.crt': 'CERT', 'site.key': 'KEY' })
  const fleet = fleetConfigSchema.parse({ ca: 'ca.pem', cert: 'site.crt', key: path.join(dir, 'site.key'), username: 'u', password: 'p' })
  const secrets = connectionSecrets(fleet, dir)
  t.equal(secrets.ca?.toString(), 'CA')
  t.equal(secrets.cert?.toString(), 'CERT')
  t.equal(secrets.key?.toString(), 'KEY')
  t.equal(secrets.username, 'u')
  t.equal(secrets.password, 'p')
  writeFileSync(path.join(dir, 'ca.pem'), 'CA2')
  t.equal(connectionSecrets(fleet, dir).ca?.toString(), 'CA2', 'read again at each connect, so a renewed file is used')
  t.throws(() => connectionSecrets(fleetConfigSchema.parse({ ca: 'missing.pem' }), dir), FleetTlsFileError)
  t.throws(() => connectionSecrets(fleetConfigSchema.parse({ ca: 'missing.pem' }), dir), { message: /fleet\.ca file .*missing\.pem: ENOENT/ })
})

t.test("the CA a site trusts for HQ's downloads: rollout.ca, else the broker's, else the public ones", async (t) => {
  const dir = t.testdir({ 'broker-ca.pem': 'BROKER', 'hq-ca.pem': 'HQ' })
  t.equal(hqTrust(fleetConfigSchema.parse({}), dir), undefined, 'none configured: the system CAs')
  t.same(hqTrust(fleetConfigSchema.parse({ ca: 'broker-ca.pem' }), dir), { ca: Buffer.from('BROKER'), source: `fleet.ca ${path.join(dir, 'broker-ca.pem')}` })
  t.same(hqTrust(fleetConfigSchema.parse({ ca: 'broker-ca.pem', rollout: { ca: 'hq-ca.pem' } }), dir), {
    ca: Buffer.from('HQ'),
    source: `fleet.rollout.ca ${path.join(dir, 'hq-ca.pem')}`,
  })
  writeFileSync(path.join(dir, 'hq-ca.pem'), 'HQ2')
  t.equal(hqTrust(fleetConfigSchema.parse({ rollout: { ca: 'hq-ca.pem' } }), dir)?.ca.toString(), 'HQ2', 'read again at each download')
  t.throws(() => hqTrust(fleetConfigSchema.parse({ rollout: { ca: 'missing.pem' } }), dir), {
    name: 'FleetTlsFileError',
    message: /fleet\.rollout\.ca file .*missing\.pem: ENOENT/,
  })
})

t.test('the replay window and its rate: defaults and bounds', async (t) => {
  const fleet = parseConfig({}).fleet
  t.equal(fleet.replayWindow, 2000)
  t.equal(fleet.replayPerMinute, 6000)
  t.equal(parseConfig({ fleet: { replayWindow: 0 } }).fleet.replayWindow, 0, '0: no window')
  for (const replayWindow of [-1, 1.5, 100_001])
    t.throws(() => parseConfig({ fleet: { replayWindow } }), { message: /fleet\.replayWindow/ }, String(replayWindow))
  t.throws(() => parseConfig({ fleet: { replayPerMinute: 0 } }), { message: /fleet\.replayPerMinute/ })
})
