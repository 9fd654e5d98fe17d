// Issue 40's power cut as a nemesis schedule (tests/nemesis/harness.ts) against the real
// gateway process: two orders on a right, synchronised clock; a power cut and a boot a day
// behind, not synchronised; an order on that clock; network time answers (the clock steps a
// day forward); the orders are cleared. Every invariant is checked after every step: the
// orders from before the cut keep their true times and waiting times, no row ends before it
// starts, the statistics agree with the history. Fails on the code before issue 40's fix
// (the step moved every order a day into the future, elapsedTime 0).
import t from 'tap'
import { describeFailure, runSchedule } from './harness.ts'
import type { Step } from './schedule.ts'

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
