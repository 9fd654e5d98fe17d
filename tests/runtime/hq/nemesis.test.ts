// HQ's adversary in npm test: one short seeded schedule (tests/runtime/hq/nemesis.ts) against
// two `gateway hq` processes, Mosquitto, PostgreSQL and three sites under load. The seed is
// printed; SEED=… repeats the schedule. `npm run test:nemesis-hq` runs long ones.
import t from 'tap'
import { describeHqFailure, describeStep, hqSchedule, runHqSchedule } from './nemesis.ts'

t.test('a seed gives one schedule: at most all instances but one faulted at a time', async (t) => {
  const options = { seed: 42, steps: 200, instances: 3, longHoldMs: [60_000, 120_000] as [number, number] }
  t.same(hqSchedule(options), hqSchedule(options), 'the same seed, the same schedule')
  t.notSame(hqSchedule(options), hqSchedule({ ...options, seed: 43 }), 'another seed, another')
  const schedule = hqSchedule(options)
  const instanceKinds = ['kill', 'freeze', 'stop', 'retire']
  t.ok(
    schedule.every((s) => s.faults.filter((f) => instanceKinds.includes(f.kind)).length <= 2),
    'never all three instances',
  )
  t.ok(
    hqSchedule({ ...options, instances: 2 }).every((s) => s.faults.filter((f) => instanceKinds.includes(f.kind)).length <= 1),
    'of two, never both',
  )
  t.ok(
    schedule.every((s) => !(s.faults.some((f) => f.kind === 'retire') && s.faults.some((f) => f.kind === 'postgres'))),
    'no retiring while PostgreSQL is down',
  )
  const kinds = new Set(schedule.flatMap((s) => s.faults.map((f) => f.kind)))
  t.same([...kinds].sort(), ['broker-kill', 'broker-restart', 'freeze', 'kill', 'partition', 'postgres', 'retire', 'stop'], 'every kind of fault')
  t.ok(
    schedule.some((s) => s.holdMs >= 60_000),
    'some held for minutes',
  )
  t.match(
    describeStep(
      {
        faults: [
          { kind: 'partition', target: 1 },
          { kind: 'kill', target: 0 },
        ],
        holdMs: 2500,
        calmMs: 1000,
      },
      0,
    ),
    'step 1: partition site-1 + kill instance #0 for 2.5 s, then 1.0 s calm',
  )
})

t.test('a short seeded schedule against the real stack: HQ never far behind, every change once', async (t) => {
  const seed = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31))
  const steps = Number(process.env.HQ_NEMESIS_STEPS ?? 6)
  t.comment(`seed ${seed} (SEED=${seed} repeats the schedule)`)
  const report = await runHqSchedule({ seed, steps, log: (line) => t.comment(line) })
  t.comment(
    `${report.stepsRun} steps, ${report.figures.checks} checks (${report.figures.enforced} where the bound applied), worst ${report.figures.worstMs} ms behind (${report.figures.worstExcusedMs} ms while excused), ${report.figures.changes} changes, ${(report.durationMs / 1000).toFixed(1)} s`,
  )
  t.same(report.problems, [], report.problems.length ? describeHqFailure(report) : 'no problem')
  t.equal(report.stepsRun, steps, 'every step ran')
  t.ok(report.figures.checks > steps * 3, `checked ${report.figures.checks} times`)
  t.ok(report.figures.enforced > 0, `the bound applied to ${report.figures.enforced} of them`)
})
