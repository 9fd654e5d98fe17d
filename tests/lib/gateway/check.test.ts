import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { ConnectionCheck } from '../../../lib/gateway/check.ts'
import type { RadioInfo } from '../../../lib/radio/radio.ts'
import { Store } from '../../../lib/store/db.ts'

t.test('a radio that does not answer within the timeout fails the check when the clock says so', async (t) => {
  const clock = new ManualClock()
  const store = new Store()
  const check = new ConnectionCheck({
    clock,
    radioInfo: () => new Promise<RadioInfo>(() => {}),
    collection: await store.collection('health'),
    cloudActivated: () => false,
    probeCloud: async () => {
      throw new Error('not activated')
    },
  })
  let report: Awaited<ReturnType<ConnectionCheck['run']>> | undefined
  void check.run(7).then((r) => (report = r))
  await clock.advance(6999)
  t.equal(report, undefined, 'still waiting within the timeout')
  await clock.advance(1)
  t.match(report, { ok: false, timeout: 7, radio: { ok: false, detail: 'no answer within 7 s' }, storage: { ok: true }, cloud: null })
  t.equal(clock.pending, 0, 'no timer left behind')
})

t.test('the radio item names the repeaters and units that do not answer their pings', async (t) => {
  const store = new Store()
  const info: RadioInfo = { kind: 'zigbee', up: true, eui64: '00:12:4b:00:01:02:03:04', channel: 15, panId: 1, permitJoinUntil: null, unavailable: [] }
  const check = new ConnectionCheck({
    clock: new ManualClock(),
    radioInfo: async () => info,
    collection: await store.collection('health'),
    cloudActivated: () => false,
    probeCloud: async () => {
      throw new Error('not activated')
    },
  })
  t.match((await check.run(0)).radio, { ok: true, detail: 'up on channel 15' })
  info.unavailable = [
    { address: '00:12:4b:00:11:22:33:44', role: 'repeater', lastHeard: null },
    { address: '00:12:4b:00:55:66:77:88', role: 'unit', lastHeard: 5 },
  ]
  t.match((await check.run(0)).radio, {
    ok: true,
    detail: 'up on channel 15; not answering: repeater 00:12:4b:00:11:22:33:44, starter/clearing unit 00:12:4b:00:55:66:77:88',
  })
})
