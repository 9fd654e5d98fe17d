// What the data dir knows about the clocks of the gateway's runs (lib/kernel/clock-runs.ts).
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { ClockRuns } from '../../../lib/kernel/clock-runs.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

t.test('the high-water mark and the unsure runs survive a restart', async (t) => {
  const file = path.join(t.testdir({}), 'clock-runs.json')
  const first = ClockRuns.open(file)
  t.equal(first.highWater, 0, 'nothing known on a fresh data dir')
  first.noteTime(5000)
  t.equal(first.highWater, 5000)
  first.noteTime(4000)
  t.equal(first.highWater, 5000, 'never lowered by a read')
  first.noteSure(false, 6000)
  first.noteTime(9000)
  t.equal(first.highWater, 5000, 'a clock not known right raises no mark')
  t.equal(first.isUnsure(first.id), true)
  const second = ClockRuns.open(file)
  t.not(second.id, first.id, 'every run has its own id')
  t.equal(second.highWater, 5000)
  t.equal(second.earlierHighWater, 5000)
  t.equal(second.isUnsure(first.id), true, 'the killed run ended unsure')
  t.equal(second.isUnsure(second.id), false)
  second.noteSure(false, 0)
  second.noteSure(true, 7000)
  t.equal(ClockRuns.open(file).isUnsure(second.id), false, 'mended before it ended')
  t.equal(ClockRuns.open(file).highWater, 7000)
  t.same(JSON.parse(readFileSync(file, 'utf8')).unsureRuns, [first.id])
})

t.test('a step moves the mark this run noted; a synchronised clock sets it, also lower', async (t) => {
  const file = path.join(t.testdir({}), 'clock-runs.json')
  const first = ClockRuns.open(file)
  first.noteTime(10_000)
  const second = ClockRuns.open(file)
  second.noteTime(20_000)
  second.shifted(-15_000)
  t.equal(second.highWater, 10_000, 'the earlier run\'s mark stays')
  t.equal(ClockRuns.open(file).highWater, 10_000)
  second.noteSynchronized(3000)
  t.equal(ClockRuns.open(file).highWater, 3000, 'the synchronised clock wins over a mark a wrong clock left')
})

t.test('right is what the watch says; an unreadable file starts empty and says so', async (t) => {
  const dir = t.testdir({ 'clock-runs.json': '{not json' })
  const logs = memoryLogger()
  const runs = ClockRuns.open(path.join(dir, 'clock-runs.json'), logs.log)
  t.equal(runs.highWater, 0)
  t.match(logs.lines(), [{ msg: /clock runs file is unreadable/ }])
  t.equal(runs.right(), false)
  runs.noteRight(true)
  t.equal(runs.right(), true)
  const memory = ClockRuns.open(undefined)
  memory.noteTime(42)
  t.equal(memory.highWater, 42, 'in memory without a file')
  writeFileSync(path.join(dir, 'clock-runs.json'), JSON.stringify({ highWater: 'x', unsureRuns: [1, 'a'] }))
  const odd = ClockRuns.open(path.join(dir, 'clock-runs.json'))
  t.equal(odd.highWater, 0)
  t.equal(odd.isUnsure('a'), true)
})
