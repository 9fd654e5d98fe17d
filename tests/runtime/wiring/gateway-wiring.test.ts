import t from 'tap'
import { ManualClock, settle } from '../../helpers/manual-clock.ts'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { SettingsService } from '../../../lib/settings/service.ts'
import { Store } from '../../../lib/store/db.ts'
import { buildGatewayServices } from '../../../runtime/wiring/gateway-wiring.ts'
import { FakeRadio } from '../../helpers/fake-radio.ts'

async function setup() {
  const clock = new ManualClock('2026-05-01T08:00:00Z')
  const store = new Store()
  const radio = new FakeRadio(clock)
  const settings = await SettingsService.open(await store.collection('settings'))
  await settings.update({ timezone: 'UTC' })
  const services = await buildGatewayServices({
    config: parseConfig({}),
    clock,
    log: memoryLogger('fatal').log,
    store,
    identity: { deviceId: 'TG-TEST', version: '0.1.0', startedAt: clock.now() },
    settings,
    radio,
    fleetStatus: () => ({ state: 'disabled', backlog: 0, lastError: null, lastPublishedSeq: null }),
  })
  return { clock, radio, services }
}

t.test('repeaterJoined events from the radio feed the repeater inventory', async (t) => {
  const { clock, radio, services } = await setup()
  radio.setUp(true)
  radio.emit('repeaterJoined', { extendedAddress: '00:12:4b:00:11:22:33:44', shortAddress: 0x10, at: clock.now(), deviceModel: 'R1' })
  await settle()
  t.match(services.repeaters.list(), [{ extendedAddress: '00:12:4b:00:11:22:33:44', deviceModel: 'R1', status: 'ACTIVE', lastSeen: '2026-05-01T08:00:00' }])
  radio.setUp(false)
  t.equal(services.repeaters.list()[0].status, 'INACTIVE', 'nothing is active while the radio is down')
})

t.test('a repeater that left the network (deviceLeft) leaves the inventory', async (t) => {
  const { clock, radio, services } = await setup()
  radio.emit('repeaterJoined', { extendedAddress: '00:12:4b:00:11:22:33:44', shortAddress: 0x10, at: clock.now() })
  radio.emit('repeaterJoined', { extendedAddress: '00:12:4b:00:11:22:33:55', shortAddress: 0x11, at: clock.now() })
  radio.emit('deviceLeft', { address: '00:12:4b:00:11:22:33:44', at: clock.now() })
  radio.emit('deviceLeft', { address: '00:12:4b:00:00:00:00:01', at: clock.now() })
  await services.repeaters.refresh({})
  t.same(services.repeaters.list().map((r) => r.extendedAddress), ['00:12:4b:00:11:22:33:55'])
})

t.test('refresh asks the radio to ping the repeaters', async (t) => {
  const { radio, services } = await setup()
  await services.repeaters.refresh(radio)
  t.equal(radio.refreshed, 1)
})

t.test('the gateway status carries the radio figures', async (t) => {
  const { services } = await setup()
  t.match(await services.gateway.status(), { zigbeeEui64: '00:12:4b:00:01:02:03:04', zigbeeChannel: 20, radioKind: 'zigbee', deviceId: 'TG-TEST', radioProcess: null })
})
