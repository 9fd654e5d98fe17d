// The nemesis (issue 40) scaled to fit `npm test`: issue 40's power cut written out as a
// schedule, then one seeded schedule, each against the real gateway process with every
// invariant checked after every step (tests/nemesis/harness.ts). The long run is
// `npm run test:nemesis` (SCHEDULES=500). NEMESIS_SEED and NEMESIS_STEPS override the
// seeded one; a failure prints its seed and steps, and SEED=<seed> SCHEDULES=1
// npm run test:nemesis repeats it.
import t from 'tap'
import { describeFailure, runSchedule } from './harness.ts'
import type { Step } from './schedule.ts'

// A seed whose 14 steps mix orders with a full disk, a step of a day's quarter while up, a
// backup restored into a fresh data dir (TLS key compared) and a power cut (chosen for that
// mix, and few restarts so it stays short; docs/operations.md "Nemesis" has the long run).
const seed = process.env.NEMESIS_SEED === undefined ? 34 : Number(process.env.NEMESIS_SEED)
const steps = Number(process.env.NEMESIS_STEPS ?? 14)

t.test("issue 40's power cut: orders on a right clock, a boot a day behind, then network time", async (t) => {
  const schedule: Step[] = [
    { kind: 'create', pick: 0, via: 'v2', orderType: 'ON_PREMISE', table: 4 },
    { kind: 'create', pick: 0, via: 'sim', orderType: 'TO_GO', table: null },
    { kind: 'wait', ms: 1500 },
    { kind: 'powercut', offsetSec: -86_400 },
    { kind: 'create', pick: 0.5, via: 'v1', orderType: 'ON_PREMISE', table: null },
    { kind: 'wait', ms: 500 },
    { kind: 'sync', synchronized: true },
    { kind: 'clear', pick: 0, via: 'v2-name' },
    { kind: 'clear', pick: 0, via: 'sim' },
    { kind: 'clear', pick: 0, via: 'v1' },
  ]
  const report = await runSchedule({ seed: 0, schedule, log: (line) => t.comment(line) })
  t.same(report.problems, [], report.problems.length ? describeFailure(report) : 'every invariant held after every step')
  t.equal(report.stepsRun, schedule.length)
})

t.test(`a seeded schedule of ${steps} steps (seed ${seed}; repeat with NEMESIS_SEED=${seed})`, async (t) => {
  const report = await runSchedule({ seed, steps, log: (line) => t.comment(line) })
  if (report.fullDiskSkipped) t.comment(`full-disk steps skipped: ${report.fullDiskSkipped}`)
  t.same(report.problems, [], report.problems.length ? describeFailure(report) : 'every invariant held after every step')
  t.equal(report.stepsRun, report.schedule.length, 'every step ran')
  t.ok(report.figures.acknowledged > 0, `${report.figures.acknowledged} acknowledged order operations`)
})
