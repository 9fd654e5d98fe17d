// The subscriptions buildServices() makes between services (runtime/wiring/subscriptions.ts),
// driven through a radio whose events the test fires by hand.
import t from 'tap'
import { ManualClock, settle } from '../../helpers/manual-clock.ts'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { buildServices } from '../../../runtime/wiring/services.ts'
import { FakeRadio } from '../../helpers/fake-radio.ts'
import type { FleetRadioSource, FleetService } from '../../../lib/fleet/service.ts'
import { fleetFollowsRadio } from '../../../runtime/wiring/subscriptions.ts'

async function setup() {
  const clock = new ManualClock('2026-05-01T08:00:00Z')
  const logs = memoryLogger()
  const radio = new FakeRadio(clock, logs.log)
  const services = await buildServices({ config: parseConfig({ dataDir: '/nonexistent-test-data' }), clock, log: logs.log, inMemory: true, radio })
  await services.settings.update({ timezone: 'UTC' })
  return { clock, radio, services, logs }
}

const repeater = '00:12:4b:00:11:22:33:44'

t.test('repeaterJoined events from the radio feed the repeater inventory; its status follows the radio', async (t) => {
  const { clock, radio, services } = await setup()
  radio.setUp(true)
  radio.emit('repeaterJoined', { extendedAddress: repeater, shortAddress: 0x10, at: clock.now(), deviceModel: 'R1' })
  await settle()
  t.match(services.repeaters.list(), [{ extendedAddress: repeater, deviceModel: 'R1', status: 'ACTIVE', lastSeen: '2026-05-01T08:00:00' }])
  radio.setUp(false)
  t.equal(services.repeaters.list()[0].status, 'INACTIVE', 'nothing is active while the radio is down')
})

t.test('a device that left the network (deviceLeft) leaves the repeater inventory', async (t) => {
  const { clock, radio, services } = await setup()
  radio.emit('repeaterJoined', { extendedAddress: repeater, shortAddress: 0x10, at: clock.now() })
  radio.emit('repeaterJoined', { extendedAddress: '00:12:4b:00:11:22:33:55', shortAddress: 0x11, at: clock.now() })
  radio.emit('deviceLeft', { address: repeater, at: clock.now() })
  radio.emit('deviceLeft', { address: '00:12:4b:00:00:00:00:01', at: clock.now() })
  await services.repeaters.refresh({})
  t.same(
    services.repeaters.list().map((r) => r.extendedAddress),
    ['00:12:4b:00:11:22:33:55'],
  )
})

t.test('tracker events from the radio drive the orders service, in the order they came', async (t) => {
  const { clock, radio, services } = await setup()
  const address = '00:12:4b:00:00:00:00:07'
  radio.emit('trackerStarted', { address, number: 7, orderType: 'ON_PREMISE', at: clock.now() })
  radio.emit('trackerLocated', { address, table: 12, at: clock.now() })
  await settle()
  t.match(services.orders.list(), [{ name: 7, locationName: 12, state: 'located', tracker: address }])
  radio.emit('trackerCleared', { address, at: clock.now() })
  await settle()
  t.same(services.orders.list(), [], 'cleared at the pass')
})

t.test('a repeater that cannot be recorded is logged, and the radio and orders carry on', async (t) => {
  const { clock, radio, services, logs } = await setup()
  services.repeaters.record = async () => {
    throw new Error('disk full')
  }
  radio.emit('repeaterJoined', { extendedAddress: repeater, shortAddress: 0x10, at: clock.now() })
  radio.emit('trackerStarted', { address: '00:12:4b:00:00:00:00:08', number: 8, orderType: 'TO_GO', at: clock.now() })
  await settle()
  t.match(
    logs.lines().filter((line) => line.msg === 'event listener failed'),
    [{ event: 'repeaterJoined', err: { message: 'disk full' } }],
  )
  t.match(services.orders.list(), [{ name: 8, orderType: 'TO_GO' }])
})

t.test('the fleet status message follows the radio: told once per move between up and down', async (t) => {
  const clock = new ManualClock('2026-05-01T08:00:00Z')
  const radio = new FakeRadio(clock, memoryLogger().log)
  radio.up = false
  let source: FleetRadioSource | undefined
  const announced: boolean[] = []
  const fleet = { reportRadio: (s: FleetRadioSource) => (source = s), statusChanged: () => announced.push(source!.up()) } as unknown as FleetService
  fleetFollowsRadio(radio, fleet)
  await settle()
  t.equal(source!.kind, 'zigbee')
  t.equal(source!.up(), false)
  radio.setUp(true)
  radio.setUp(true)
  radio.setUp(false)
  t.same(announced, [true, false], 'a repeated status is not a move')
})

t.test('a radio already up when the fleet subscribes is reported up (from its info), and announced', async (t) => {
  const clock = new ManualClock('2026-05-01T08:00:00Z')
  const radio = new FakeRadio(clock, memoryLogger().log)
  let source: FleetRadioSource | undefined
  let announced = 0
  fleetFollowsRadio(radio, { reportRadio: (s: FleetRadioSource) => (source = s), statusChanged: () => announced++ } as unknown as FleetService)
  await settle()
  t.equal(source!.up(), true)
  t.equal(announced, 1)
})
