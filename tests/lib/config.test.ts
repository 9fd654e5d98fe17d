import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { ConfigError, dataDirSource, loadConfig, parseConfig } from '../../lib/config.ts'

t.test('defaults: port 8000, ./data, simulated radio', async (t) => {
  const config = parseConfig({})
  t.equal(config.port, 8000)
  t.equal(config.dataDir, './data')
  t.equal(config.radio.kind, 'simulated')
  t.equal(config.webhooks.allowLoopback, false)
})

t.test('an unknown key or a bad value names the key', async (t) => {
  t.throws(() => parseConfig({ colour: 'red' }), { name: 'ConfigError', message: /unknown key "colour"/ })
  t.throws(() => parseConfig({ radio: { kind: 'simulated', speed: 1 } }), { message: /unknown key "radio\.speed"/ })
  t.throws(() => parseConfig({ port: 'eighty' }), { message: /"port"/ })
  t.throws(() => parseConfig({ radio: { kind: 'wifi' } }), { message: /"radio\.kind"/ })
})

t.test('radio serial options; the adapter type is required where herdsman cannot detect it', async (t) => {
  const radio = parseConfig({
    radio: { kind: 'zigbee', adapter: 'ember', serialPort: '/dev/serial/by-id/usb-Nabu_Casa_ZBT-2-if00', baudRate: 460800, rtscts: true, transmitPower: 10 },
  }).radio
  t.same(radio, {
    kind: 'zigbee',
    adapter: 'ember',
    serialPort: '/dev/serial/by-id/usb-Nabu_Casa_ZBT-2-if00',
    baudRate: 460800,
    rtscts: true,
    transmitPower: 10,
    trackers: 50,
  })
  for (const serialPort of ['tcp://192.168.1.20:6638', 'socket://slzb:6638', '/dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus-if00-port0']) {
    t.throws(
      () => parseConfig({ radio: { kind: 'zigbee', serialPort } }),
      { name: 'ConfigError', message: /"radio\.adapter": required with serialPort/ },
      serialPort,
    )
  }
  t.equal(
    parseConfig({ radio: { kind: 'zigbee', serialPort: '/dev/ttyUSB0' } }).radio.adapter,
    undefined,
    'a system device name: herdsman matches known sticks',
  )
  t.equal(parseConfig({ radio: { kind: 'zigbee' } }).radio.serialPort, undefined, 'no path: USB auto-detection')
  t.throws(() => parseConfig({ radio: { kind: 'zigbee', adapter: 'zstack', rtscts: 'yes' } }), { message: /"radio\.rtscts"/ })
  t.throws(() => parseConfig({ radio: { kind: 'zigbee', adapter: 'zstack', baudRate: 12 } }), { message: /"radio\.baudRate"/ })
})

t.test('radio.manufacturerCode: the trkTracker manufacturer code, 0x0001-0xFFFE', async (t) => {
  t.equal(parseConfig({ radio: { kind: 'zigbee', manufacturerCode: 0x1234 } }).radio.manufacturerCode, 0x1234)
  t.equal(parseConfig({}).radio.manufacturerCode, undefined, 'the radio applies its default')
  t.throws(() => parseConfig({ radio: { kind: 'zigbee', manufacturerCode: 0x10000 } }), { message: /"radio\.manufacturerCode"/ })
  t.throws(() => parseConfig({ radio: { kind: 'zigbee', manufacturerCode: '0xfff1' } }), { message: /"radio\.manufacturerCode"/ })
})

t.test('file, environment and flags, in rising priority', async (t) => {
  const dir = t.testdir({ 'gateway.config.json': JSON.stringify({ port: 9000, dataDir: 'from-file' }) })
  const fromFile = loadConfig({}, {}, dir)
  t.equal(fromFile.port, 9000)
  t.equal(fromFile.dataDir, path.join(dir, 'from-file'))
  const fromEnv = loadConfig({}, { PORT: '9100', GATEWAY_DATA_DIR: '/tmp/env-data', GATEWAY_WEBHOOKS_ALLOW_LOOPBACK: '1' }, dir)
  t.equal(fromEnv.port, 9100)
  t.equal(fromEnv.dataDir, '/tmp/env-data')
  t.equal(fromEnv.webhooks.allowLoopback, true)
  const fromFlags = loadConfig({ port: 9200, dataDir: 'flag-data' }, { PORT: '9100' }, dir)
  t.equal(fromFlags.port, 9200)
  t.equal(fromFlags.dataDir, path.join(dir, 'flag-data'))
})

t.test('GATEWAY_CONFIG names another file; a missing or broken one stops start-up', async (t) => {
  const dir = t.testdir({ 'other.json': JSON.stringify({ port: 7000 }), 'broken.json': '{' })
  t.equal(loadConfig({}, { GATEWAY_CONFIG: 'other.json' }, dir).port, 7000)
  t.throws(() => loadConfig({}, { GATEWAY_CONFIG: 'missing.json' }, dir), ConfigError)
  t.throws(() => loadConfig({ configPath: 'broken.json' }, {}, dir), { message: /not valid JSON/ })
  t.throws(() => loadConfig({}, { PORT: 'abc' }, dir), { message: /PORT/ })
})

t.test('no config file at all is fine', async (t) => {
  const dir = t.testdir({})
  t.equal(loadConfig({}, {}, dir).port, 8000)
  writeFileSync(path.join(dir, 'gateway.config.json'), JSON.stringify({ mdns: { enabled: 'yes' } }))
  t.throws(() => loadConfig({}, {}, dir), { message: /"mdns\.enabled"/ })
  writeFileSync(path.join(dir, 'gateway.config.json'), 'null')
  t.throws(
    () => loadConfig({}, {}, dir),
    { name: 'ConfigError', message: /gateway\.config\.json: not a JSON object \(null\)$/ },
    'a file holding null: a clear error, not a crash',
  )
})

t.test('a relative dataDir in a config file is relative to that file; the installed config is the last resort', async (t) => {
  const dir = t.testdir({
    etc: { 'gateway.config.json': JSON.stringify({ port: 8100, dataDir: 'var' }) },
    work: {},
    repo: { 'gateway.config.json': JSON.stringify({ port: 8200 }) },
  })
  const installed = path.join(dir, 'etc', 'gateway.config.json')
  const work = path.join(dir, 'work')
  const fromInstalled = loadConfig({}, {}, work, installed)
  t.equal(fromInstalled.port, 8100, 'no ./gateway.config.json: the installed one')
  t.equal(fromInstalled.dataDir, path.join(dir, 'etc', 'var'))
  t.equal(loadConfig({ configPath: installed }, {}, work).dataDir, path.join(dir, 'etc', 'var'), 'the same from any working directory')
  const repo = loadConfig({}, {}, path.join(dir, 'repo'), installed)
  t.equal(repo.port, 8200, './gateway.config.json wins over the installed one')
  t.equal(repo.dataDir, path.join(dir, 'repo', 'data'), 'no dataDir in the file: the default, relative to the working directory')
  t.equal(loadConfig({}, {}, work, path.join(dir, 'missing.json')).dataDir, path.join(work, 'data'), 'no file at all: ./data')

  t.equal(dataDirSource({ dataDir: 'x' }, {}, work, installed), '--data-dir')
  t.equal(dataDirSource({}, { GATEWAY_DATA_DIR: 'x' }, work, installed), 'GATEWAY_DATA_DIR')
  t.equal(dataDirSource({}, {}, work, installed), `the config ${installed}`)
  t.equal(dataDirSource({}, {}, work, path.join(dir, 'missing.json')), 'the default ./data')
})

t.test('http.allowedHosts: host names only, none by default', async (t) => {
  t.same(parseConfig({}).http.allowedHosts, [])
  t.same(parseConfig({ http: { allowedHosts: ['orders.myrestaurant.lan', 'KDS-1'] } }).http.allowedHosts, ['orders.myrestaurant.lan', 'KDS-1'])
  t.throws(() => parseConfig({ http: { allowedHosts: ['http://evil.example'] } }), /"http\.allowedHosts\.0"/)
  t.throws(() => parseConfig({ http: { allowedHosts: ['a b'] } }), ConfigError)
})
