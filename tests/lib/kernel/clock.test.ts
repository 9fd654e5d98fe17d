import t from 'tap'
import { SystemClock } from '../../../lib/kernel/clock.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

t.test('ManualClock fires due timers in order and only when advanced', async (t) => {
  const clock = new ManualClock(0)
  const fired: string[] = []
  clock.setTimeout(() => fired.push('b'), 200)
  clock.setTimeout(() => fired.push('a'), 100)
  const cancelled = clock.setTimeout(() => fired.push('never'), 150)
  clock.clearTimeout(cancelled)
  await clock.advance(99)
  t.same(fired, [])
  await clock.advance(101)
  t.same(fired, ['a', 'b'])
  t.equal(clock.now(), 200)
  t.equal(clock.pending, 0)
})

t.test('ManualClock runs timers scheduled by timers within the same advance', async (t) => {
  const clock = new ManualClock(0)
  const seen: number[] = []
  const tick = () => {
    seen.push(clock.now())
    if (seen.length < 3) clock.setTimeout(tick, 10)
  }
  clock.setTimeout(tick, 10)
  await clock.advance(100)
  t.same(seen, [10, 20, 30])
})

t.test('SystemClock timers fire and can be cleared', async (t) => {
  const clock = new SystemClock()
  t.ok(Math.abs(clock.now() - Date.now()) < 1000)
  let fired = false
  const handle = clock.setTimeout(() => (fired = true), 1)
  const cancelled = clock.setTimeout(() => t.fail('cleared timer fired'), 1)
  clock.clearTimeout(cancelled)
  clock.clearTimeout(undefined)
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.ok(fired)
  clock.clearTimeout(handle)
})
