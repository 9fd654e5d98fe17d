// The clock watch and the provenance of times (docs/api.md, "Clock"): a start behind the
// high-water mark, a step behind it, a step away from a synchronised clock (held), and the
// system's "synchronised" winning over all of them.
import t from 'tap'
import { ClockRuns } from '../../../lib/kernel/clock-runs.ts'
import { ClockWatch, type ClockJump, type SyncReading } from '../../../lib/kernel/clock-watch.ts'
import { settle } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'

const hour = 3_600_000
const start = Date.parse('2026-11-22T12:00:00Z')

function setup(options: { highWater?: number; sync?: SyncReading['state']; unsureOrders?: number } = {}) {
  const clock = new SteppingClock(start)
  const logs = memoryLogger()
  const runs = ClockRuns.open(undefined)
  const mends: { deltaMs: number; cause: ClockJump['cause'] }[] = []
  let sync: SyncReading = { state: options.sync ?? 'unsynchronized', source: 'timedatectl' }
  const watch = new ClockWatch({
    clock,
    log: logs.log,
    mend: async (deltaMs, cause) => {
      await settle()
      mends.push({ deltaMs, cause })
      clock.shift(deltaMs)
    },
    readSync: async () => sync,
    thresholdMs: 3000,
    checkEveryMs: 1000,
    syncCheckMs: 60_000,
    holdMs: 300_000,
    boardMaxShiftMs: 366 * 24 * hour,
    runs,
    ordersOnUnsureClock: () => options.unsureOrders ?? 0,
    highWater: () => options.highWater ?? 0,
  })
  t.teardown(() => watch.stop())
  const settled = async () => {
    await clock.advance(1000)
    await watch.settled()
    await clock.advance(1000)
  }
  return { clock, logs, runs, mends, watch, settled, setSync: (state: SyncReading['state']) => void (sync = { state, source: 'timedatectl' }) }
}

t.test('a boot a day behind the high-water mark starts the gateway clock at the mark; the step forward is mended from there', async (t) => {
  const { clock, logs, runs, mends, watch, settled, setSync } = setup({ highWater: start + 24 * hour })
  watch.startBehind()
  t.equal(clock.now(), start + 24 * hour, 'the gateway clock starts at the mark, not a day back')
  t.match(watch.state(), { behind: { highWater: start + 24 * hour, behindMs: 24 * hour } })
  t.match(logs.lines(), [{ msg: /behind the times the gateway already wrote/ }])
  t.equal(runs.isUnsure(runs.id), true, 'the run is recorded as on a clock known wrong')
  watch.start()
  await settled()
  t.same(mends, [], 'the known difference is no step')
  t.equal(watch.right(), false)
  // Network time answers: the system clock steps a day and five minutes forward.
  clock.step(24 * hour + 5 * 60_000)
  setSync('synchronized')
  await settled()
  t.same(mends, [{ deltaMs: 5 * 60_000, cause: 'system' }], 'only what the gateway clock was behind: the time it was down')
  t.equal(clock.drift(), 0)
  t.equal(watch.state().behind, null)
  t.equal(watch.right(), true)
  t.equal(runs.right(), true, 'the orders are told the clock is right')
  t.equal(runs.isUnsure(runs.id), false)
})

t.test('a system that says synchronised wins over the mark, also a mark ahead of it', async (t) => {
  const { clock, mends, watch, settled } = setup({ highWater: start + 24 * hour, sync: 'synchronized' })
  watch.startBehind()
  watch.start()
  await settled()
  t.same(mends, [{ deltaMs: -24 * hour, cause: 'system' }])
  t.equal(clock.now(), clock.systemNow())
  t.equal(watch.state().behind, null)
})

t.test('a clock not behind the mark starts as it is', async (t) => {
  const { clock, watch } = setup({ highWater: start - 2000 })
  watch.startBehind()
  t.equal(clock.now(), start)
  t.equal(watch.state().behind, null)
})

t.test('once synchronised, a step away from it is held until the system says synchronised again', async (t) => {
  const { clock, logs, runs, mends, watch, settled, setSync } = setup({ sync: 'synchronized' })
  watch.start()
  await settled()
  t.equal(watch.right(), true)
  // `date -s` by hand: the kernel says the clock is no longer synchronised.
  clock.step(-2 * hour)
  setSync('unsynchronized')
  await settled()
  t.same(mends, [], 'nothing moved')
  t.equal(clock.drift(), -2 * hour, 'the gateway keeps its right clock')
  t.equal(logs.lines().filter((line) => /stepped away from a synchronised time/.test(String(line.msg))).length, 1, 'logged once')
  t.equal(watch.right(), true, 'still right: it runs on the monotonic clock since it was synchronised')
  t.equal(runs.right(), true)
  await clock.advance(120_000)
  t.same(mends, [], 'held across readings')
  // Network time puts it right again: nothing to mend.
  clock.step(2 * hour)
  setSync('synchronized')
  await settled()
  await clock.advance(61_000)
  t.equal(clock.drift(), 0)
  t.ok(
    mends.every((mend) => Math.abs(mend.deltaMs) <= 3000),
    `nothing moved by the wrong step (${JSON.stringify(mends)})`,
  )
})

t.test('a step the synchronised system itself makes is followed', async (t) => {
  const { clock, mends, watch, settled } = setup({ sync: 'synchronized' })
  watch.start()
  await settled()
  clock.step(10_000)
  await settled()
  t.same(mends, [{ deltaMs: 10_000, cause: 'system' }])
})

t.test('a step behind the mark, on a clock never known right, stops at the mark', async (t) => {
  const { clock, mends, watch, settled } = setup({ highWater: start - 60_000 })
  watch.startBehind()
  watch.start()
  await settled()
  clock.step(-3 * hour)
  await settled()
  t.equal(mends.length, 1)
  t.equal(clock.now() >= start - 60_000, true, 'never behind the mark')
  t.match(watch.state(), { behind: { highWater: start - 60_000 } })
  t.ok(watch.state().behind!.behindMs > 3 * hour - 70_000, `behind by ${watch.state().behind!.behindMs} ms`)
  t.equal(watch.sure(), false)
  // A step forward to where the gateway's clock is: nothing more to mend.
  clock.step(3 * hour)
  await settled()
  t.equal(watch.state().behind, null)
})

t.test('the state counts orders on a clock never known right', async (t) => {
  const { watch } = setup({ unsureOrders: 3 })
  t.equal(watch.state().ordersOnUnsureClock, 3)
})

t.test("'right' is told once when the clock becomes known right, after the step that made it so is mended", async (t) => {
  const { clock, mends, watch, settled, setSync } = setup()
  const told: number[] = []
  watch.on('right', () => void told.push(mends.length))
  watch.start()
  await settled()
  t.same(told, [], 'not while the system says not synchronised')
  clock.step(2 * hour)
  setSync('synchronized')
  await settled()
  t.same(told, [1], 'once, with the step already mended')
  await clock.advance(120_000)
  t.same(told, [1], 'not again while it stays right')
})
