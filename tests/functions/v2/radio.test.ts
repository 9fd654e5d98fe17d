// The radio upkeep endpoints (/api/v2/radio/...) and the coordinator in GET /api/v2/gateway:
// the whole service graph on a ZigbeeRadio in this process (real herdsman Controller, fake
// Z-Stack stick), then on the simulated restaurant (no Zigbee network: 404, -5, as the simulator's routes on a Zigbee gateway).
import t, { type Test } from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { parseConfig } from '../../../lib/config.ts'
import { ZigbeeRadio } from '../../../lib/radio/zigbee.ts'
import { ieeeToAddress } from '../../../lib/radio/zigbee-profile.ts'
import { buildRouter } from '../../../runtime/host/router.ts'
import { buildServices } from '../../../runtime/wiring/services.ts'
import { type CallOptions, makeRequest, testGateway } from '../../helpers/gateway.ts'
import { checkedRouter } from '../../helpers/documented-responses.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { coordinatorIeee, installFakeAdapter, instantHerdsmanWaits } from '../../helpers/zigbee-fake-adapter.ts'
import { joinAndSettle, logged, repeater, tracker } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'

const trackerAddress = ieeeToAddress(tracker.ieee)
const repeaterAddress = ieeeToAddress(repeater.ieee)

async function zigbeeGateway(t: Test) {
  const fake = installFakeAdapter({ family: 'zstack' })
  const waits = instantHerdsmanWaits()
  const dataDir = t.testdir()
  const clock = new ManualClock()
  const logs = memoryLogger('info')
  const radio = new ZigbeeRadio({ dataDir, clock, channel: 15, log: logs.log, checkIntervalMs: 0, adapter: 'zstack' })
  const config = parseConfig({ dataDir, radio: { kind: 'zigbee', adapter: 'zstack', serialPort: '/dev/ttyUSB0' } })
  const services = await buildServices({ config, clock, log: memoryLogger('fatal').log, inMemory: true, radio })
  const router = checkedRouter(buildRouter(manifest, services))
  t.teardown(async () => {
    await radio.stop()
    fake.restore()
    waits.restore()
  })
  await radio.start()
  const json = async (route: string, options?: CallOptions) => {
    const response = await router.fetch(makeRequest(route, options))
    return { status: response.status, body: (await response.json()) as any }
  }
  services.button.press()
  const token = (await json('GET /api/v2/accesstoken/generate?name=installer')).body.token.token as string
  return { fake, radio, logs, json, token, context: { logs } }
}

t.test('GET /api/v2/gateway names the coordinator: type, firmware, IEEE address, backup', async (t) => {
  const gw = await zigbeeGateway(t)
  const { body } = await gw.json('GET /api/v2/gateway', { token: gw.token })
  t.match(body.gatewayStatus.coordinator, {
    adapter: 'zstack',
    type: 'zStack3x0',
    firmware: 'fake-zstack-1.2.3',
    eui64: ieeeToAddress(coordinatorIeee),
    start: 'reset',
    backup: { supported: true, at: Number, takeover: /^a blank zstack stick takes the network over from coordinator_backup.json/ },
  })
})

t.test('devices, a failed interview run again, the map, a removal', async (t) => {
  const gw = await zigbeeGateway(t)
  const adapter = gw.fake.current!
  await joinAndSettle(gw.context, adapter, repeater)
  adapter.interviewFailing.add(tracker.ieee)
  adapter.join(tracker)
  await until(() => logged(gw.logs, tracker, 'zigbee interview failed; the device is interviewed again when it rejoins'), 'the failed interview')

  const listed = await gw.json('GET /api/v2/radio/devices', { token: gw.token })
  t.equal(listed.status, 200)
  t.match(listed.body, { returnCode: 24, count: 2, failed: 1 })
  t.same(
    listed.body.devices.map((device: { address: string; interview: string }) => [device.address, device.interview]),
    [
      [trackerAddress, 'failed'],
      [repeaterAddress, 'successful'],
    ],
  )

  adapter.interviewFailing.delete(tracker.ieee)
  const interviewed = await gw.json(`POST /api/v2/radio/devices/${tracker.ieee}/interview`, { token: gw.token })
  t.equal(interviewed.status, 200)
  t.match(interviewed.body, { returnCode: 24, error: null, device: { address: trackerAddress, interview: 'successful', role: 'tracker' } })

  adapter.neighbours.set(0, [{ ieee: repeater.ieee, nwk: repeater.nwk, deviceType: 1, lqi: 180, relationship: 1, depth: 1 }])
  const map = await gw.json('GET /api/v2/radio/map', { token: gw.token })
  t.equal(map.status, 200)
  t.same(
    map.body.map.links.map((link: { from: string; to: string; linkQuality: number }) => [link.from, link.to, link.linkQuality]),
    [[ieeeToAddress(coordinatorIeee), repeaterAddress, 180]],
  )

  adapter.unreachable.add(repeater.ieee)
  const refused = await gw.json(`DELETE /api/v2/radio/devices/${repeaterAddress}`, { token: gw.token })
  t.equal(refused.status, 503)
  t.equal(refused.body.returnCode, -46)
  t.match(refused.body.message, /did not acknowledge the leave request/)
  const forced = await gw.json(`DELETE /api/v2/radio/devices/${repeaterAddress}?force=true`, { token: gw.token })
  t.match(forced.body, { returnCode: 24, removed: repeaterAddress, left: false })
  t.equal((await gw.json('GET /api/v2/radio/devices', { token: gw.token })).body.count, 1)
  const unknown = await gw.json(`DELETE /api/v2/radio/devices/${repeaterAddress}`, { token: gw.token })
  t.equal(unknown.status, 404)
  t.equal(unknown.body.returnCode, -47)
})

t.test('the simulated restaurant has no Zigbee network: 404/-5; a bad address -47, a bad force -48', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  for (const route of ['GET /api/v2/radio/devices', 'GET /api/v2/radio/map', 'POST /api/v2/radio/devices/00124b0001020304/interview']) {
    const answer = await gw.json(route, { token })
    t.equal(answer.status, 404, route)
    t.equal(answer.body.returnCode, -5, route)
  }
  const bad = await gw.json('DELETE /api/v2/radio/devices/not-an-address', { token })
  t.equal(bad.body.returnCode, -47)
  const force = await gw.json('DELETE /api/v2/radio/devices/00124b0001020304?force=yes', { token })
  t.equal(force.body.returnCode, -48)
  t.equal((await gw.json('GET /api/v2/gateway', { token })).body.gatewayStatus.coordinator, null)
  t.equal((await gw.json('GET /api/v2/radio/devices')).body.returnCode, -2, 'a token is needed')
})
