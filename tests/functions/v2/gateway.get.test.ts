import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v2/gateway answers gatewayStatus with every field of the spec, code 11', async (t) => {
  const gw = await testGateway({}, '2026-07-01T10:00:00Z')
  const token = await gw.issueToken()
  await gw.services.settings.update({ timezone: 'Europe/Berlin' })
  const { status, body } = await gw.json('GET /api/v2/gateway', { token })
  t.equal(status, 200)
  t.equal(body.returnCode, 11)
  const info = await gw.services.radio.info()
  t.match(body.gatewayStatus, {
    freeMemory: Number,
    totalMemory: Number,
    usedMemory: Number,
    gatewayPlatform: /^[a-z0-9]+-[a-z0-9]+$/,
    gatewayProduct: 'Tracker Gateway',
    deviceId: gw.services.identity.deviceId,
    utcOffset: '+02:00',
    timezone: 'Europe/Berlin',
    cpuTemp: Number,
    cpuUtilization: Number,
    zigbeeEui64: info.eui64,
    zigbeeChannel: info.channel,
    cloudAccountName: null,
    cloudLocationName: null,
    uptime: Number,
    appBundleVersion: gw.services.identity.version,
    currentTime: '2026-07-01T12:00:00',
  })
  const s = body.gatewayStatus
  t.match(s.zigbeeEui64, /^([0-9a-f]{2}:){7}[0-9a-f]{2}$/, 'colon-separated hexadecimal bytes')
  t.ok(s.totalMemory > 0 && s.freeMemory > 0 && s.usedMemory === s.totalMemory - s.freeMemory, 'real memory figures')
  t.ok(Number.isInteger(s.uptime) && s.uptime > 0, 'uptime in whole seconds')
  t.ok(s.cpuUtilization >= 0 && s.cpuUtilization <= 100)
})

t.test('a timezone change shows in the status at once', async (t) => {
  const gw = await testGateway({}, '2026-01-15T10:00:00Z')
  const token = await gw.issueToken()
  await gw.json('POST /api/v2/gateway/settings', { token, body: { timezone: '-05:00' } })
  const { body } = await gw.json('GET /api/v2/gateway', { token })
  t.match(body.gatewayStatus, { timezone: '-05:00', utcOffset: '-05:00', currentTime: '2026-01-15T05:00:00' })
})

t.test('GET /api/v2/gateway needs a token', async (t) => {
  const gw = await testGateway()
  const { status, body } = await gw.json('GET /api/v2/gateway')
  t.equal(status, 401)
  t.equal(body.returnCode, -2)
})

t.test('gatewayStatus reports the fleet bridge: disabled by default', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const { body } = await gw.json('GET /api/v2/gateway', { token })
  t.same(body.gatewayStatus.fleet, { state: 'disabled', backlog: 0, lastError: null, lastPublishedSeq: null })
})

t.test('extension: the process memory (rss, heap used/total/limit, external) in bytes', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const { body } = await gw.json('GET /api/v2/gateway', { token })
  const memory = body.gatewayStatus.memory
  t.match(memory, { rss: Number, heapUsed: Number, heapTotal: Number, heapLimit: Number, external: Number })
  t.ok(memory.rss > memory.heapUsed && memory.heapUsed > 0, 'real figures')
  t.ok(memory.heapLimit >= memory.heapTotal, 'the ceiling is above the heap')
})
