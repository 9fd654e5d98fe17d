// The whole gateway on the Zigbee radio. In its own process (real herdsman Controller, fake
// coordinator loaded into that process by the test): the status shows the coordinator, the
// preset moves the network, HTTP keeps serving while the radio is down and says why, config
// reaches the radio. In-process (the radio handed to buildServices, on the test's clock):
// what devices do, through the API.
import t, { type Test } from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { Radio } from '../../../lib/radio/radio.ts'
import { ZigbeeRadio } from '../../../lib/radio/zigbee.ts'
import { buildRouter } from '../../../runtime/host/router.ts'
import { buildServices, type BuildOptions } from '../../../runtime/wiring/services.ts'
import { type CallOptions, clientAt, makeRequest } from '../../helpers/gateway.ts'
import { checkedRouter } from '../../helpers/documented-responses.ts'
import { installFakeAdapter, instantHerdsmanWaits, type FakeDevice } from '../../helpers/zigbee-fake-adapter.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'
import { until } from '../../helpers/until.ts'

/** A radio process (re)starts in seconds on a loaded machine. */
const processMs = 60_000

const repeater: FakeDevice = {
  ieee: '0x00124b0011223344',
  nwk: 0x4321,
  type: 'Router',
  inClusters: [0x0000],
  basic: { modelId: 'REPEATER-2', manufacturerName: 'Acme', powerSource: 1, zclVersion: 8, swBuildId: '2.1.0' },
}

/** Real time: the radio may run in another process. */
async function gateway(
  t: Test,
  options: { radio?: Record<string, unknown>; zigbee?: BuildOptions['zigbee']; inProcess?: (dataDir: string, clock: ManualClock) => Radio } = {},
) {
  const dataDir = t.testdir()
  const clock = new ManualClock()
  const config = parseConfig({ dataDir, radio: { kind: 'zigbee', adapter: 'zstack', serialPort: '/dev/ttyUSB0', ...options.radio } })
  const radio = options.inProcess?.(dataDir, clock)
  const services = await buildServices({ config, clock, log: memoryLogger('fatal').log, inMemory: true, zigbee: options.zigbee, radio })
  const router = checkedRouter(buildRouter(manifest, services))
  const gw = {
    services,
    clock,
    json: async (route: string, options?: CallOptions) => {
      const response = await router.fetch(makeRequest(route, options), clientAt(options?.ip))
      return { status: response.status, body: (await response.json()) as any }
    },
    issueToken: async () => {
      services.button.press()
      return (await gw.json('GET /api/v2/accesstoken/generate?name=zigbee')).body.token.token as string
    },
  }
  t.teardown(() => gw.services.radio.stop())
  return gw
}

t.test('zigbee radio process behind the HTTP API', async (t) => {
  const remote = await FakeRemote.open(t)
  const gw = await gateway(t, { zigbee: remote.processOptions })
  await gw.services.radio.start()
  const token = await gw.issueToken()

  const status = await gw.json('GET /api/v2/gateway', { token })
  t.match(status.body.gatewayStatus, {
    zigbeeEui64: '00:12:4b:00:01:02:03:04',
    zigbeeChannel: 15,
    radioKind: 'zigbee',
    radioUp: true,
    radioProcess: { lastError: null, restarts: 0, nextAttemptAt: null },
  })

  await gw.json('POST /api/v2/gateway/settings', { token, body: { zigbeePreset: 'D' } })
  await until(async () => (await gw.services.radio.info()).channel === 25 && (await gw.services.radio.info()).up, 'the channel change', processMs)
  t.equal((await gw.json('GET /api/v2/gateway', { token })).body.gatewayStatus.zigbeeChannel, 25, 'the preset moved the network')
  await until(() => remote.children[0].channelBroadcasts.length > 0, 'the broadcast reported', processMs)
  t.same(remote.children[0].channelBroadcasts, [25], 'the running network was told before the radio process restarted')

  const open = await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout: 120 } })
  t.equal(open.body.returnCode, 1012)
  await until(() => remote.current!.permitJoins.length === 1, 'joining opened', processMs)
  t.same(remote.current!.permitJoins, [120], 'herdsman opened joining on the coordinator')
  remote.current!.join(repeater)
  await until(() => gw.services.repeaters.list().length === 1, 'the repeater in the inventory', processMs)
  const list = await gw.json('GET /api/v2/repeaters?refresh=true', { token })
  t.match(list.body.repeaters, [{ extendedAddress: '00:12:4b:00:11:22:33:44', deviceModel: 'REPEATER-2', status: 'ACTIVE', firmwareVersion: '2.1.0' }])

  remote.failStarts = 1000
  remote.current!.unplug()
  await until(async () => !(await gw.services.radio.info()).up, 'radio down', processMs)
  const down = await gw.json('GET /api/v2/gateway', { token })
  t.equal(down.status, 200, 'HTTP keeps serving without the radio')
  t.equal(down.body.gatewayStatus.radioUp, false)
  t.same(
    down.body.gatewayStatus.radioProcess,
    { lastError: 'adapter disconnected', restarts: 0, nextAttemptAt: gw.clock.now() + 1000, rss: null },
    'the status says why and when it is tried again',
  )
  t.match((await gw.json('GET /api/v2/gateway/check', { token })).body.check, { ok: false, radio: { ok: false, detail: 'radio is down' } })
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.repeaters[0].status, 'INACTIVE')
})

t.test('devices through the API: a foreign device never listed, a silent repeater named by the check, a departed one dropped', async (t) => {
  const fake = installFakeAdapter()
  const herdsmanWaits = instantHerdsmanWaits()
  t.teardown(() => {
    fake.restore()
    herdsmanWaits.restore()
  })
  const gw = await gateway(t, {
    inProcess: (dataDir, clock) => new ZigbeeRadio({ dataDir, clock, channel: 15, log: memoryLogger('fatal').log, checkIntervalMs: 0 }),
  })
  const clock = gw.clock
  await gw.services.radio.start()
  const token = await gw.issueToken()
  const adapter = fake.current!
  const sensor: FakeDevice = { ...repeater, ieee: '0x00124b00deadbeef', nwk: 0x7777, type: 'EndDevice', inClusters: [0x0000, 0x0402] }
  adapter.join(repeater)
  adapter.join(sensor)
  await until(() => gw.services.repeaters.list().length === 1 && adapter.leaves.length === 1, 'the repeater listed and the sensor removed', processMs)
  t.same(adapter.leaves, [sensor.ieee])

  adapter.unreachable.add(repeater.ieee)
  await clock.advance(10 * 60_000)
  const notAnswering = 'up on channel 15; not answering: repeater 00:12:4b:00:11:22:33:44'
  await until(
    async () => (await gw.json('GET /api/v2/gateway/check?timeout=0', { token })).body.check.radio.detail === notAnswering,
    'the failed ping',
    processMs,
  )

  adapter.leave(repeater)
  await until(async () => (await gw.json('GET /api/v2/repeaters', { token })).body.repeaters.length === 0, 'the repeater dropped', processMs)
  t.match((await gw.json('GET /api/v2/gateway/check?timeout=0', { token })).body.check.radio, { ok: true, detail: 'up on channel 15' })
})

t.test('radio.manufacturerCode in the config reaches the radio process', async (t) => {
  const remote = await FakeRemote.open(t)
  const gw = await gateway(t, { radio: { manufacturerCode: 0x1234 }, zigbee: remote.processOptions })
  await gw.services.radio.start()
  remote.current!.join({
    ...repeater,
    ieee: '0x00124b00aabbccdd',
    nwk: 0x1234,
    type: 'EndDevice',
    inClusters: [0x0000, 0x0001, 0x0003, 0xfc00],
    manufacturerCode: 0x1234,
  })
  const configured = () => remote.current!.frames.find((frame) => frame.command === 'configReport' && frame.clusterId === 0xfc00)
  await until(() => configured() !== undefined, 'the tracker configured', processMs)
  t.equal(configured()!.manufacturerCode, 0x1234)
})
