// The coordinator's firmware as each herdsman adapter reports it (CoordinatorVersion.meta of
// zigbee-herdsman 10.9.5), and its one-line description.
import t from 'tap'
import { describeCoordinator, firmwareOf } from '../../../lib/radio/coordinator.ts'

t.test("firmware from each adapter's meta", async (t) => {
  t.equal(firmwareOf({ transportrev: 2, product: 1, majorrel: 2, minorrel: 7, maintrel: 1, revision: 20230507 }), '20230507', 'zstack')
  t.equal(firmwareOf({ ezsp: 13, revision: '7.4.4 [GA]', build: 0, major: 7, minor: 4, patch: 4 }), '7.4.4 [GA]', 'ember')
  t.equal(firmwareOf({ transportrev: 0, product: 0, majorrel: 2, minorrel: 6, maintrel: 120, revision: '0x26780700' }), '0x26780700', 'deconz')
  t.equal(firmwareOf({ coordinator: 1, stack: '1.2.3.4', protocol: '1.0.0.0', revision: '2.0.1.3' }), '2.0.1.3', 'zboss')
  t.equal(firmwareOf({ ezsp: 0, revision: 'unknown' }), null, 'ember before it read its version')
  t.equal(firmwareOf({ majorrel: '3', minorrel: '1d', maintrel: '0' }), '3.1d.0', 'the release numbers when no revision')
  t.equal(firmwareOf({ revision: 0 }), null)
  t.equal(firmwareOf({}), null)
  t.equal(firmwareOf(undefined), null)
})

t.test('one line for the log and gateway status', async (t) => {
  const info = {
    adapter: 'ember',
    type: 'EmberZNet',
    firmware: '7.4.4 [GA]',
    eui64: '00:12:4b:00:01:02:03:04',
    start: 'resumed' as const,
    backup: { supported: true, at: null, takeover: '' },
  }
  t.equal(describeCoordinator(info), 'EmberZNet (adapter ember), firmware 7.4.4 [GA], IEEE 00:12:4b:00:01:02:03:04')
  t.equal(describeCoordinator({ ...info, adapter: null, firmware: null }), 'EmberZNet, firmware unknown, IEEE 00:12:4b:00:01:02:03:04')
})
