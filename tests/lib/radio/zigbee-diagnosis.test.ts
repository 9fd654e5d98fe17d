// The probe's one-line verdicts, from the messages herdsman 10.9.5 and the serial library give.
import t from 'tap'
import { describeCandidates, diagnoseStart } from '../../../lib/radio/zigbee-diagnosis.ts'

const setting = { path: '/dev/ttyACM0', adapter: 'ember' }

t.test('each failure in one line', async (t) => {
  t.match(
    diagnoseStart('Error: Permission denied, cannot open /dev/ttyACM0', setting, []),
    /^permission denied on \/dev\/ttyACM0: the gateway's user must be in the dialout group$/,
  )
  t.match(
    diagnoseStart('Failed to start EZSP layer with status=HOST_FATAL_ERROR. (Error: Resource temporarily unavailable Cannot lock port)', setting, []),
    /^port busy/,
  )
  t.equal(
    diagnoseStart('Adapter EZSP protocol version (12) is not supported by Host [13-16].', setting, []),
    'firmware too old for ember: Adapter EZSP protocol version (12) is not supported by Host [13-16].',
  )
  t.match(diagnoseStart('NCP has old-style version number. Not supported.', { path: '/dev/ttyACM0' }, []), /^firmware too old for this adapter/)
  t.match(
    diagnoseStart('Error: Failed to connect to the adapter (Error: SREQ timeout)', { ...setting, adapter: 'zstack', baudRate: 57600 }, []),
    /^no answer at 57600 baud from \/dev\/ttyACM0/,
  )
  const zbt2 = [{ name: 'ZBT-2', path: '/dev/ttyACM0', adapter: 'ember', baudRate: 460800, rtscts: true }]
  t.match(diagnoseStart('the radio did not start within 60 s', setting, zbt2), /^no answer at 460800 baud/, "the stick's own baud rate when none is configured")
  t.equal(diagnoseStart('something else', setting, []), 'start failed: something else')
})

// What herdsman 10.9.5's adapters answer when nothing speaks on the port (seen on a pseudo-terminal).
const silentDeconz = 'failed to start adapter connection to firmware'
const silentZboss = 'Failure send 20:{"version":0,"type":0,"commandId":20,"tsn":1,"payload":{}} (==> Error: Error: {"commandId":20,"tsn":1} after 10000ms)'
const silentZigate =
  'failed to connect to zigate adapter sendCommand error: Error: {"ziGateObject":{"_code":17,"_payload":{},"_parameters":[]},"rules":[{"receivedProperty":"code","value":32774}]} after 5000ms'

t.test('a silent deCONZ stick is not told its firmware is too old: it is told the two speeds deCONZ sticks use', async (t) => {
  const deconz = { path: '/dev/ttyACM0', adapter: 'deconz' }
  t.equal(
    diagnoseStart(silentDeconz, deconz, []),
    'no answer at 38400 baud from /dev/ttyACM0: deCONZ sticks speak 38400 baud (ConBee II, RaspBee, the default) or 115200 (ConBee III); try radio.baudRate 115200 (ConBee III), check radio.adapter, or replug the stick',
  )
  t.match(diagnoseStart(silentDeconz, { ...deconz, baudRate: 115200 }, []), /^no answer at 115200 baud .* try radio\.baudRate 38400 \(ConBee II, RaspBee\)/)
  t.match(diagnoseStart('the radio did not start within 60 s', deconz, []), /^no answer at 38400 baud/, "deCONZ's own default speed, not herdsman's")
})

t.test('silent zboss and zigate sticks get the no-answer line, not the raw error', async (t) => {
  t.match(diagnoseStart(silentZboss, { path: '/dev/ttyACM0', adapter: 'zboss' }, []), /^no answer at 115200 baud from \/dev\/ttyACM0: wrong baud rate/)
  t.match(diagnoseStart(silentZigate, { path: '/dev/ttyUSB0', adapter: 'zigate' }, []), /^no answer at 115200 baud from \/dev\/ttyUSB0: wrong baud rate/)
})

t.test('a coordinator on the network gets no baud-rate advice', async (t) => {
  const tcp = { path: 'tcp://192.168.1.40:6638', adapter: 'zstack', baudRate: 115200 }
  for (const reason of [
    'Error: Failed to connect to the adapter (Error: SREQ timeout)',
    'the radio did not start within 60 s',
    'connect ETIMEDOUT 192.168.1.40:6638',
  ]) {
    const verdict = diagnoseStart(reason, tcp, [])
    t.match(verdict, /^no answer from tcp:\/\/192\.168\.1\.40:6638: is the coordinator switched on, its address and port right/, reason)
    t.notMatch(verdict, /baud/, reason)
  }
  t.match(diagnoseStart('connect ECONNREFUSED 192.168.1.40:6638', tcp, []), /^connection refused by tcp:/)
  t.match(diagnoseStart('getaddrinfo ENOTFOUND slzb.local', { ...tcp, path: 'tcp://slzb.local:6638' }, []), /^unknown host in tcp:\/\/slzb\.local:6638/)
  t.match(diagnoseStart('connect EHOSTUNREACH 192.168.1.40:6638', tcp, []), /^no route to/)
  t.match(
    diagnoseStart('Adapter EZSP protocol version (12) is not supported by Host [13-16].', { ...tcp, adapter: 'ember' }, []),
    /^firmware too old for ember/,
  )
  t.equal(diagnoseStart('odd', tcp, []), 'start failed: odd')
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
