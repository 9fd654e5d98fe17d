// The probe's one-line verdicts, from the messages herdsman 10.9.5 and the serial library give.
import t from 'tap'
import { describeCandidates, diagnoseStart } from '../../../lib/radio/zigbee-diagnosis.ts'

const setting = { path: '/dev/ttyACM0', adapter: 'ember' }

t.test('each failure in one line', async (t) => {
  t.match(diagnoseStart('Error: Permission denied, cannot open /dev/ttyACM0', setting, []), /^permission denied on \/dev\/ttyACM0: the gateway's user must be in the dialout group$/)
  t.match(diagnoseStart('Failed to start EZSP layer with status=HOST_FATAL_ERROR. (Error: Resource temporarily unavailable Cannot lock port)', setting, []), /^port busy/)
  t.equal(
    diagnoseStart('Adapter EZSP protocol version (12) is not supported by Host [13-16].', setting, []),
    'firmware too old for ember: Adapter EZSP protocol version (12) is not supported by Host [13-16].',
  )
  t.match(diagnoseStart('NCP has old-style version number. Not supported.', { path: '/dev/ttyACM0' }, []), /^firmware too old for this adapter/)
  t.match(diagnoseStart('Error: Failed to connect to the adapter (Error: SREQ timeout)', { ...setting, adapter: 'zstack', baudRate: 57600 }, []), /^no answer at 57600 baud from \/dev\/ttyACM0/)
  const zbt2 = [{ name: 'ZBT-2', path: '/dev/ttyACM0', adapter: 'ember', baudRate: 460800, rtscts: true }]
  t.match(diagnoseStart('the radio did not start within 60 s', setting, zbt2), /^no answer at 460800 baud/, "the stick's own baud rate when none is configured")
  t.equal(diagnoseStart('something else', setting, []), 'start failed: something else')
})

t.test('the list of sticks', async (t) => {
  t.equal(
    describeCandidates([
      { name: 'ZBT-2 (Nabu Casa)', path: '/dev/ttyACM0', adapter: 'ember', baudRate: 460800, rtscts: true },
      { name: 'Sonoff (ITead)', path: '/dev/ttyUSB0', adapter: 'zstack' },
      { name: 'ttyS0 (undefined)', path: '/dev/ttyS0' },
    ]),
    [
      '  /dev/ttyACM0  ZBT-2 (Nabu Casa)  (adapter ember, baudRate 460800, rtscts true)',
      '  /dev/ttyUSB0  Sonoff (ITead)  (adapter zstack)',
      '  /dev/ttyS0  ttyS0 (undefined)  (adapter type not recognised)',
    ].join('\n'),
  )
})
