import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { OfflineAlarm, readOfflineAlarmSeconds, saveOfflineAlarmSeconds } from '../../../web/board/offline-alarm.js'

t.test('the alarm sounds once the gateway is out of reach long enough, and again while it stays so', async (t) => {
  const alarm = new OfflineAlarm()
  alarm.connection(true, 0)
  t.notOk(alarm.due(100_000, 60), 'live: never')
  alarm.connection(false, 1000)
  t.notOk(alarm.due(60_999, 60), 'not yet a minute')
  t.ok(alarm.due(61_000, 60), 'a minute out of reach')
  t.ok(alarm.due(62_000, 60), 'not played yet (sound blocked): still owed')
  alarm.played(62_000)
  t.notOk(alarm.due(91_999, 60), 'within the repeat')
  t.ok(alarm.due(92_000, 60), 'again 30 s later')
  alarm.connection(false, 95_000)
  t.ok(alarm.due(122_000, 60), 'still counted from when it went out of reach')
  alarm.connection(true, 123_000)
  t.notOk(alarm.due(200_000, 60), 'back: silent')
  alarm.connection(false, 200_000)
  t.notOk(alarm.due(250_000, 60), 'a new outage starts its own count')
  t.notOk(alarm.due(10_000_000, 0), '0: never')
})

t.test('the delay is kept per screen', async (t) => {
  const values = new Map<string, string>()
  const storage = { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value) }
  t.equal(readOfflineAlarmSeconds(storage), 60)
  saveOfflineAlarmSeconds(120, storage)
  t.equal(readOfflineAlarmSeconds(storage), 120)
  t.throws(() => saveOfflineAlarmSeconds(7, storage))
})
