import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
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

t.test('refresh asks the radio to ping the repeaters', async (t) => {
  const { radio, services } = await setup()
  await services.repeaters.refresh(radio)
  t.equal(radio.refreshed, 1)
})

t.test('the gateway status carries the radio figures', async (t) => {
  const { services } = await setup()
  t.match(await services.gateway.status(), {
    zigbeeEui64: '00:12:4b:00:01:02:03:04',
    zigbeeChannel: 20,
    radioKind: 'zigbee',
    deviceId: 'TG-TEST',
    radioProcess: null,
  })
})
