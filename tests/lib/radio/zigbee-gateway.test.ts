// The whole gateway on the Zigbee radio (real herdsman Controller, fake coordinator): the
// status shows the coordinator, paging reaches the tracker, and HTTP keeps serving while
// the adapter is gone.
import t, { type Test } from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { ManualClock } from '../../../lib/clock.ts'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../../lib/log.ts'
import { buildRouter } from '../../../runtime/router.ts'
import { buildServices } from '../../../runtime/services.ts'
import { type CallOptions, makeRequest } from '../../helpers/gateway.ts'
import { installFakeAdapter, instantHerdsmanWaits, type FakeDevice } from '../../helpers/zigbee-fake-adapter.ts'

const repeater: FakeDevice = {
  ieee: '0x00124b0011223344', nwk: 0x4321, type: 'Router', inClusters: [0x0000],
  basic: { modelId: 'REPEATER-2', manufacturerName: 'Acme', powerSource: 1, zclVersion: 8, swBuildId: '2.1.0' },
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`timed out waiting for ${what}`)
}

async function zigbeeGateway(t: Test, radio: Record<string, unknown> = {}) {
  const fake = installFakeAdapter()
  const herdsmanWaits = instantHerdsmanWaits()
  const config = parseConfig({ dataDir: t.testdir(), radio: { kind: 'zigbee', adapter: 'zstack', serialPort: '/dev/ttyUSB0', ...radio } })
  const services = await buildServices({ config, clock: new ManualClock(), log: memoryLogger('fatal').log, inMemory: true })
  const router = buildRouter(manifest, services)
  const gw = {
    services,
    json: async (route: string, options?: CallOptions) => {
      const response = await router.fetch(makeRequest(route, options))
      return { status: response.status, body: (await response.json()) as any }
    },
    issueToken: async () => {
      services.button.press()
      return (await gw.json('GET /api/v2/accesstoken/generate?name=zigbee')).body.token.token as string
    },
  }
  t.teardown(async () => {
    await gw.services.radio.stop()
    fake.restore()
    herdsmanWaits.restore()
  })
  return { fake, gw }
}

t.test('zigbee radio behind the HTTP API', async (t) => {
  const { fake, gw } = await zigbeeGateway(t)
  await gw.services.radio.start()
  const token = await gw.issueToken()

  const status = await gw.json('GET /api/v2/gateway', { token })
  t.match(status.body.gatewayStatus, { zigbeeEui64: '00:12:4b:00:01:02:03:04', zigbeeChannel: 15, radioKind: 'zigbee', radioUp: true })

  await gw.json('POST /api/v2/gateway/settings', { token, body: { zigbeePreset: 'D' } })
  await until(async () => (await gw.services.radio.info()).channel === 25 && (await gw.services.radio.info()).up, 'the channel change')
  t.equal((await gw.json('GET /api/v2/gateway', { token })).body.gatewayStatus.zigbeeChannel, 25, 'the preset moved the network')

  const open = await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout: 120 } })
  t.equal(open.body.returnCode, 1012)
  t.same(fake.current!.permitJoins, [120], 'herdsman opened joining on the coordinator')
  fake.current!.join(repeater)
  await until(() => gw.services.repeaters.list().length === 1, 'the repeater in the inventory')
  const list = await gw.json('GET /api/v2/repeaters?refresh=true', { token })
  t.match(list.body.repeaters, [{ extendedAddress: '00:12:4b:00:11:22:33:44', deviceModel: 'REPEATER-2', status: 'ACTIVE', firmwareVersion: '2.1.0' }])

  fake.failNextStarts(1000)
  fake.current!.unplug()
  await until(async () => !(await gw.services.radio.info()).up, 'radio down')
  const down = await gw.json('GET /api/v2/gateway', { token })
  t.equal(down.status, 200, 'HTTP keeps serving without the radio')
  t.equal(down.body.gatewayStatus.radioUp, false)
  t.match((await gw.json('GET /api/v2/gateway/check', { token })).body.check, { ok: false, radio: { ok: false, detail: 'radio is down' } })
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.repeaters[0].status, 'INACTIVE')
})

t.test('devices through the API: a foreign device never listed, a silent repeater named by the check, a departed one dropped', async (t) => {
  const { fake, gw } = await zigbeeGateway(t)
  const clock = gw.services.clock as ManualClock
  await gw.services.radio.start()
  const token = await gw.issueToken()
  const adapter = fake.current!
  const sensor: FakeDevice = { ...repeater, ieee: '0x00124b00deadbeef', nwk: 0x7777, type: 'EndDevice', inClusters: [0x0000, 0x0402] }
  adapter.join(repeater)
  adapter.join(sensor)
  await until(() => gw.services.repeaters.list().length === 1 && adapter.leaves.length === 1, 'the repeater listed and the sensor removed')
  t.same(adapter.leaves, [sensor.ieee])

  adapter.unreachable.add(repeater.ieee)
  await clock.advance(10 * 60_000)
  const notAnswering = 'up on channel 15; not answering: repeater 00:12:4b:00:11:22:33:44'
  await until(async () => (await gw.json('GET /api/v2/gateway/check?timeout=0', { token })).body.check.radio.detail === notAnswering, 'the failed ping')

  adapter.leave(repeater)
  await until(async () => (await gw.json('GET /api/v2/repeaters', { token })).body.repeaters.length === 0, 'the repeater dropped')
  t.match((await gw.json('GET /api/v2/gateway/check?timeout=0', { token })).body.check.radio, { ok: true, detail: 'up on channel 15' })
})

t.test('radio.manufacturerCode in the config reaches the radio', async (t) => {
  const { fake, gw } = await zigbeeGateway(t, { manufacturerCode: 0x1234 })
  await gw.services.radio.start()
  const adapter = fake.current!
  adapter.join({ ...repeater, ieee: '0x00124b00aabbccdd', nwk: 0x1234, type: 'EndDevice', inClusters: [0x0000, 0x0001, 0x0003, 0xfc00], manufacturerCode: 0x1234 })
  await until(() => adapter.frames.some((frame) => frame.command.name === 'configReport' && frame.cluster.ID === 0xfc00), 'the tracker configured')
  const configured = adapter.frames.find((frame) => frame.command.name === 'configReport' && frame.cluster.ID === 0xfc00)
  t.equal(configured!.header.manufacturerCode, 0x1234)
})
