import t from 'tap'
import { SystemClock } from '../../../lib/kernel/clock.ts'
import { GatewayClock, isAdjustable, monotonicNow } from '../../../lib/kernel/gateway-clock.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

t.test('the gateway clock starts at the wall time and advances with the monotonic clock', async (t) => {
  const clock = new GatewayClock()
  t.ok(Math.abs(clock.now() - Date.now()) < 50)
  t.ok(Number.isInteger(clock.now()), 'whole milliseconds, like Date.now()')
  t.ok(Math.abs(clock.drift()) < 50, 'no drift from the system clock at start')
  const before = clock.monotonic()
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.ok(clock.monotonic() - before >= 15)
  t.ok(isAdjustable(clock))
})

t.test('a clock started on a wrong wall time drifts from the system clock by that much, until shifted', async (t) => {
  const hour = 3_600_000
  const clock = new GatewayClock(Date.now() - 3 * hour)
  t.ok(Math.abs(clock.drift() - 3 * hour) < 50, 'the system clock is 3 h ahead of it')
  clock.shift(3 * hour)
  t.ok(Math.abs(clock.drift()) < 50)
  t.ok(Math.abs(clock.now() - Date.now()) < 50)
})

t.test('onRead is called on every now(), until removed', async (t) => {
  const clock = new GatewayClock()
  let reads = 0
  clock.onRead(() => void reads++)
  clock.now()
  clock.now()
  clock.onRead(undefined)
  clock.now()
  t.equal(reads, 2)
})

t.test("monotonicNow: the clock's monotonic reading, else its now()", async (t) => {
  const manual = new ManualClock(1000)
  t.equal(monotonicNow(manual), 1000)
  t.notOk(isAdjustable(manual))
  t.notOk(isAdjustable(new SystemClock()))
  const clock = new GatewayClock()
  t.ok(Math.abs(monotonicNow(clock) - performance.now()) < 50)
})
