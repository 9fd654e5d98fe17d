// The whole gateway on the Zigbee radio (its own process, real herdsman Controller, fake
// coordinator loaded into that process by the test): the status shows the coordinator, the
// preset moves the network, and HTTP keeps serving while the radio is down, saying why.
import t from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { ManualClock } from '../../../lib/clock.ts'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../../lib/log.ts'
import { buildRouter } from '../../../runtime/router.ts'
import { buildServices } from '../../../runtime/services.ts'
import { type CallOptions, makeRequest } from '../../helpers/gateway.ts'
import type { FakeDevice } from '../../helpers/zigbee-fake-adapter.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'

const repeater: FakeDevice = {
  ieee: '0x00124b0011223344', nwk: 0x4321, type: 'Router', inClusters: [0x0000],
  basic: { modelId: 'REPEATER-2', manufacturerName: 'Acme', powerSource: 1, zclVersion: 8, swBuildId: '2.1.0' },
}

/** Real time: the radio runs in another process. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

t.test('zigbee radio behind the HTTP API', async (t) => {
  const remote = await FakeRemote.open(t)
  const config = parseConfig({ dataDir: t.testdir(), radio: { kind: 'zigbee', adapter: 'zstack', serialPort: '/dev/ttyUSB0' } })
  const clock = new ManualClock()
  const services = await buildServices({ config, clock, log: memoryLogger('fatal').log, inMemory: true, zigbee: remote.processOptions })
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
  t.teardown(() => gw.services.radio.stop())
  await gw.services.radio.start()
  const token = await gw.issueToken()

  const status = await gw.json('GET /api/v2/gateway', { token })
  t.match(status.body.gatewayStatus, { zigbeeEui64: '00:12:4b:00:01:02:03:04', zigbeeChannel: 11, radioKind: 'zigbee', radioUp: true })

  await gw.json('POST /api/v2/gateway/settings', { token, body: { zigbeePreset: 'C' } })
  await until(async () => (await gw.services.radio.info()).channel === 20 && (await gw.services.radio.info()).up, 'the channel change')
  t.equal((await gw.json('GET /api/v2/gateway', { token })).body.gatewayStatus.zigbeeChannel, 20, 'the preset moved the network')

  const open = await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout: 120 } })
  t.equal(open.body.returnCode, 1012)
  await until(() => remote.current!.permitJoins.length === 1, 'joining opened')
  t.same(remote.current!.permitJoins, [120], 'herdsman opened joining on the coordinator')
  remote.current!.join(repeater)
  await until(() => gw.services.repeaters.list().length === 1, 'the repeater in the inventory')
  const list = await gw.json('GET /api/v2/repeaters?refresh=true', { token })
  t.match(list.body.repeaters, [{ extendedAddress: '00:12:4b:00:11:22:33:44', deviceModel: 'REPEATER-2', status: 'ACTIVE', firmwareVersion: '2.1.0' }])

  remote.failStarts = 1000
  remote.current!.unplug()
  await until(async () => !(await gw.services.radio.info()).up, 'radio down')
  const down = await gw.json('GET /api/v2/gateway', { token })
  t.equal(down.status, 200, 'HTTP keeps serving without the radio')
  t.equal(down.body.gatewayStatus.radioUp, false)
  t.same(down.body.gatewayStatus.radioProcess, { lastError: 'adapter disconnected', restarts: 0, nextAttemptAt: clock.now() + 1000, rss: null }, 'the status says why and when it is tried again')
  t.match((await gw.json('GET /api/v2/gateway/check', { token })).body.check, { ok: false, radio: { ok: false, detail: 'radio is down' } })
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.repeaters[0].status, 'INACTIVE')
})
