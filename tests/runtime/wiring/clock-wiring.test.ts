import t from 'tap'
import { clockPart } from '../../../runtime/wiring/clock-wiring.ts'
import { ClockWatch } from '../../../lib/kernel/clock-watch.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'

t.test('the clock part starts the watch at once and stops it after a mend under way', async (t) => {
  const clock = new SteppingClock()
  let release!: () => void
  const mended: number[] = []
  const watch = new ClockWatch({
    clock,
    log: memoryLogger().log,
    mend: async (deltaMs) => {
      await new Promise<void>((resolve) => (release = resolve))
      clock.shift(deltaMs)
      mended.push(deltaMs)
    },
    readSync: () => new Promise(() => {}),
    thresholdMs: 3000,
    checkEveryMs: 1000,
    syncCheckMs: 60_000,
    holdMs: 300_000,
    boardMaxShiftMs: 1e10,
  })
  const part = clockPart(watch)
  t.equal(part.name, 'clock')
  await part.start()
  clock.step(10_000)
  clock.now()
  const stopped = part.stop()
  release()
  await stopped
  t.same(mended, [10_000], 'the mend under way finished before stop resolved')
  t.equal(clock.pending, 0, 'no timer left')
})

t.test('without a watch the part does nothing', async (t) => {
  const part = clockPart(undefined)
  await part.start()
  await part.stop()
  t.pass()
})
