import t from 'tap'
import { ClockWatch, earliestBoardTime, firstReadingMs, unwatchedClockState, type ClockJump, type SyncReading } from '../../../lib/kernel/clock-watch.ts'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { settle } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'

const hour = 3_600_000

function setup(options: { sync?: SyncReading | (() => Promise<SyncReading>); holdMs?: number; failMend?: boolean } = {}) {
  const clock = new SteppingClock()
  const logs = memoryLogger()
  const mends: { deltaMs: number; cause: ClockJump['cause'] }[] = []
  let sync = typeof options.sync === 'function' ? undefined : (options.sync ?? { state: 'unknown', source: 'none' })
  const watch = new ClockWatch({
    clock,
    log: logs.log,
    mend: async (deltaMs, cause) => {
      await settle()
      if (options.failMend) throw new Error('disk full')
      mends.push({ deltaMs, cause })
      clock.shift(deltaMs)
    },
    readSync: typeof options.sync === 'function' ? options.sync : async () => sync!,
    thresholdMs: 3000,
    checkEveryMs: 1000,
    syncCheckMs: 60_000,
    holdMs: options.holdMs ?? 300_000,
    boardMaxShiftMs: 366 * 24 * hour,
  })
  t.teardown(() => watch.stop())
  return { clock, logs, mends, watch, setSync: (reading: SyncReading) => void (sync = reading) }
}

const stepLogs = (logs: ReturnType<typeof memoryLogger>) => logs.lines().filter((line) => String(line.msg).startsWith('the system clock was stepped')).length

t.test('a step is noticed by the timer, logged once and mended by the same amount', async (t) => {
  const { clock, logs, mends, watch } = setup()
  const jumps: ClockJump[] = []
  watch.on('jumped', (jump) => void jumps.push(jump))
  watch.start()
  await clock.advance(5000)
  t.same(mends, [], 'no step, nothing to mend')
  clock.step(3 * hour)
  await clock.advance(1000)
  await watch.settled()
  await clock.advance(5000)
  t.same(mends, [{ deltaMs: 3 * hour, cause: 'system' }])
  t.equal(stepLogs(logs), 1, 'logged once')
  t.equal(clock.drift(), 0, 'the gateway clock follows the system clock again')
  t.match(watch.state().lastJump, { shiftMs: 3 * hour, cause: 'system' })
  t.equal(jumps.length, 1)
  t.equal(jumps[0].at, watch.state().lastJump!.at)
})

t.test('a step is noticed on use, before the timer; a small drift is not a step', async (t) => {
  const { clock, mends, watch } = setup()
  watch.start()
  clock.step(2500)
  clock.now()
  await watch.settled()
  t.same(mends, [], 'under the threshold')
  clock.step(-2 * hour)
  clock.now()
  t.equal(watch.trusted(), false, 'not trusted while the step is mended')
  t.equal(watch.state().holdingDeliveries, true)
  await watch.settled()
  t.same(mends, [{ deltaMs: -2 * hour + 2500, cause: 'system' }], 'the whole difference, the small drift included')
  t.equal(watch.trusted(), true)
})

t.test('a mend that fails is logged and the state shows no step', async (t) => {
  const { clock, logs, watch } = setup({ failMend: true })
  watch.start()
  clock.step(hour)
  clock.now()
  await watch.settled()
  t.equal(watch.state().lastJump, null)
  t.ok(logs.lines().some((line) => line.msg === 'mending the clock step failed'))
})

t.test('an unsynchronised system clock holds deliveries, for at most holdMs', async (t) => {
  const { clock, logs, watch } = setup({ sync: { state: 'unsynchronized', source: 'timedatectl' }, holdMs: 120_000 })
  let trusted = 0
  watch.on('trusted', () => void trusted++)
  watch.start()
  await settle()
  t.match(watch.state(), { synchronized: false, source: 'timedatectl', holdingDeliveries: true })
  t.equal(watch.trusted(), false)
  await clock.advance(119_000)
  t.equal(watch.trusted(), false)
  await clock.advance(1000)
  t.equal(watch.trusted(), true, 'never for ever')
  t.equal(trusted, 1)
  t.ok(logs.text().includes('webhook deliveries go with the gateway clock as it is'))
  t.equal(watch.state().synchronized, false, 'still reported unsynchronised')
})

t.test('synchronisation ends the hold; a step found with it is mended first', async (t) => {
  const { clock, mends, watch, setSync } = setup({ sync: { state: 'unsynchronized', source: 'chronyc' } })
  const order: string[] = []
  watch.on('trusted', () => void order.push(`trusted after ${mends.length} mends`))
  watch.start()
  await settle()
  t.equal(watch.trusted(), false)
  setSync({ state: 'synchronized', source: 'chronyc' })
  clock.step(3 * hour)
  await clock.advance(60_000)
  await watch.settled()
  await settle()
  t.same(order, ['trusted after 1 mends'])
  t.match(watch.state(), { synchronized: true, holdingDeliveries: false })
})

t.test('a system that cannot be asked is unknown and holds nothing', async (t) => {
  const { watch } = setup({ sync: async () => Promise.reject(new Error('no such command')) })
  watch.start()
  await settle()
  t.same(watch.state(), unwatchedClockState)
  t.equal(watch.trusted(), true)
})

t.test('a board sets the time while the system clock is not synchronised', async (t) => {
  const { clock, mends, watch, setSync } = setup({ sync: { state: 'unsynchronized', source: 'timedatectl' } })
  watch.start()
  await settle()
  const right = clock.now() + 3 * hour
  await t.rejects(watch.setFromBoard(earliestBoardTime - 1, 'board'), new DomainError('SETTINGS_VALUE_INVALID', 'time: not a plausible time'))
  await t.rejects(watch.setFromBoard(clock.now() + 400 * 24 * hour, 'board'), { kind: 'SETTINGS_VALUE_INVALID', message: /more than 366 days/ })
  t.same(mends, [], 'a refused time changes nothing')

  t.same(await watch.setFromBoard(right, 'board'), { shiftMs: 3 * hour })
  t.same(mends, [{ deltaMs: 3 * hour, cause: 'board' }])
  t.match(watch.state(), { setFromBoardAt: clock.now(), lastJump: { shiftMs: 3 * hour, cause: 'board' }, holdingDeliveries: false })
  await clock.advance(10_000)
  t.equal(mends.length, 1, 'the difference from the system clock is expected, not a step')

  // The system clock is later stepped to the right time and synchronised: it wins.
  setSync({ state: 'synchronized', source: 'timedatectl' })
  clock.step(3 * hour)
  await clock.advance(1000)
  await watch.settled()
  t.same(mends.at(-1), { deltaMs: 0, cause: 'system' }, 'already right: moved by nothing')
  t.equal(watch.state().setFromBoardAt, null)
  await t.rejects(watch.setFromBoard(right, 'board'), { kind: 'SETTINGS_VALUE_INVALID', message: /synchronised \(timedatectl\)/ })
})

t.test('stop ends the timers and the on-use check', async (t) => {
  const { clock, mends, watch } = setup()
  watch.start()
  watch.stop()
  clock.step(hour)
  clock.now()
  await clock.advance(5000)
  t.same(mends, [])
  t.equal(clock.pending, 0)
})

t.test('start never waits for the system to answer', async (t) => {
  const { clock, mends, watch } = setup({ sync: () => new Promise<SyncReading>(() => {}) })
  let trusted = 0
  watch.on('trusted', () => void trusted++)
  watch.start()
  t.same(watch.state(), { ...unwatchedClockState, holdingDeliveries: true }, 'unknown until it answers; deliveries wait for the answer')
  await clock.advance(firstReadingMs - 1)
  t.equal(watch.trusted(), false)
  await clock.advance(1)
  t.equal(watch.trusted(), true, 'but not for longer than firstReadingMs')
  t.equal(trusted, 1)
  clock.step(hour)
  await clock.advance(1000)
  await watch.settled()
  t.same(mends, [{ deltaMs: hour, cause: 'system' }], 'steps are mended meanwhile')
})
