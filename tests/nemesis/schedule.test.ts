// The nemesis's schedules (tests/nemesis/schedule.ts): a seed names one exact schedule, and
// every schedule keeps to the world a box lives in (a clock is only stepped while it is not
// synchronised, synchronisation brings the right time, a restore follows a backup).
import t from 'tap'
import { describeSchedule, generateSchedule } from './schedule.ts'

t.test('a seed reproduces its schedule exactly; another seed gives another', async (t) => {
  t.same(generateSchedule(42), generateSchedule(42))
  t.notSame(generateSchedule(42), generateSchedule(43))
  t.equal(describeSchedule(generateSchedule(7, { steps: 5 })).length, generateSchedule(7, { steps: 5 }).length)
})

t.test("schedules keep to a real box's world, and mix every kind of step", async (t) => {
  const kinds = new Set<string>()
  const wrong: string[] = []
  for (let seed = 0; seed < 300; seed++) {
    let synchronized = true
    let offset = 0
    let backups = 0
    for (const step of generateSchedule(seed)) {
      kinds.add(step.kind)
      if (step.kind === 'step') {
        if (synchronized) wrong.push(`seed ${seed}: a step while synchronised`)
        offset += step.deltaSec
      }
      if (step.kind === 'sync') {
        synchronized = step.synchronized
        if (synchronized) offset = 0
      }
      if (step.kind === 'powercut') {
        synchronized = false
        offset = step.offsetSec
      }
      if (step.kind === 'kill' && step.downOffsetSec !== null) {
        if (synchronized) wrong.push(`seed ${seed}: the clock moved while down although synchronised`)
        offset = step.downOffsetSec
      }
      if (step.kind === 'backup') backups++
      if (step.kind === 'restore' && backups === 0) wrong.push(`seed ${seed}: a restore before any backup`)
      if (Math.abs(offset) > 3 * 86_400) wrong.push(`seed ${seed}: offset ${offset} s`)
    }
  }
  t.same(wrong, [], '300 schedules keep to the rules')
  t.same([...kinds].sort(), [
    'backup',
    'clear',
    'create',
    'fulldisk',
    'kill',
    'locate',
    'page',
    'powercut',
    'restart',
    'restore',
    'step',
    'sync',
    'unpage',
    'wait',
  ])
  t.notOk(
    generateSchedule(5, { noBackups: true, noFullDisk: true, steps: 200 }).some((s) => s.kind === 'backup' || s.kind === 'restore' || s.kind === 'fulldisk'),
  )
})
