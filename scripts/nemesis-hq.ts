// `npm run test:nemesis-hq`: HQ's adversary (tests/runtime/hq/nemesis.ts) over many seeded
// schedules, each against a fresh stack: `gateway hq` processes, Mosquitto, PostgreSQL and
// three sites under load. SCHEDULES (default 20), SEED (the first schedule's; schedule i runs
// SEED+i; default random, printed first), STEPS (per schedule, default 20), INSTANCES (2 or 3,
// default 3), LONG (1, the default: 1 step in 8 holds its fault 1 to 3 minutes; 0: all short),
// BOUND_MS (how far behind a site HQ may be, default 10000). MINUTES: start no new schedule
// after that many minutes. SEED=… SCHEDULES=1 repeats one schedule. A failing schedule prints
// its seed, its steps and its problems; the run goes on and exits 1 at the end.
import { abandonHqSchedules, describeHqFailure, type FaultKind, type HqNemesisReport, runHqSchedule } from '../tests/runtime/hq/nemesis.ts'

const schedules = Number(process.env.SCHEDULES ?? 20)
const firstSeed = process.env.SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.SEED)
const steps = Number(process.env.STEPS ?? 20)
const instances = Number(process.env.INSTANCES ?? 3)
const long = process.env.LONG !== '0'
const boundMs = Number(process.env.BOUND_MS ?? 10_000)
const stopAt = process.env.MINUTES === undefined ? Infinity : Date.now() + Number(process.env.MINUTES) * 60_000
if (![schedules, steps, boundMs].every((n) => Number.isInteger(n) && n >= 1) || !Number.isInteger(firstSeed) || ![2, 3].includes(instances)) {
  console.error('SCHEDULES, STEPS and BOUND_MS must be positive integers, SEED an integer, INSTANCES 2 or 3')
  process.exit(2)
}
console.log(
  `hq nemesis: ${schedules} schedules of ${steps} steps from seed ${firstSeed} (schedule i: SEED=${firstSeed}+i), ${instances} HQ instances, 3 sites, bound ${boundMs} ms${long ? ', some faults held for minutes' : ''}`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`${signal}: ending the running schedule's processes`)
    void abandonHqSchedules().then(() => process.exit(130))
  })
}

const started = Date.now()
const failed: HqNemesisReport[] = []
const totals = { schedules: 0, steps: 0, checks: 0, enforced: 0, changes: 0, cleared: 0, instancesStarted: 0, worstMs: 0 }
const faults = new Map<FaultKind, number>()
for (let i = 0; i < schedules && Date.now() < stopAt; i++) {
  const seed = firstSeed + i
  const report = await runHqSchedule({
    seed,
    steps,
    instances,
    boundMs,
    holdMs: [2000, 15_000],
    ...(long ? { longHoldMs: [60_000, 180_000] as [number, number] } : {}),
    log: process.env.VERBOSE ? (line) => console.log(`  [${seed}] ${line}`) : undefined,
  })
  totals.schedules++
  totals.steps += report.stepsRun
  totals.checks += report.figures.checks
  totals.enforced += report.figures.enforced
  totals.changes += report.figures.changes
  totals.cleared += report.figures.cleared
  totals.instancesStarted += report.figures.instancesStarted
  totals.worstMs = Math.max(totals.worstMs, report.figures.worstMs)
  for (const [kind, n] of Object.entries(report.figures.faults)) faults.set(kind as FaultKind, (faults.get(kind as FaultKind) ?? 0) + n)
  console.log(
    `seed ${seed}: ${report.problems.length ? 'FAILED' : 'ok'}, ${report.stepsRun} steps, ${report.figures.changes} changes, worst ${report.figures.worstMs} ms behind, ${(report.durationMs / 1000).toFixed(0)} s [${totals.schedules}/${schedules}]`,
  )
  if (report.problems.length) {
    failed.push(report)
    console.log(describeHqFailure(report))
  }
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1)
console.log(
  [
    `${totals.schedules} schedules, ${totals.steps} steps in ${minutes} min: ${totals.schedules - failed.length} clean, ${failed.length} failed`,
    `faults: ${[...faults].map(([kind, n]) => `${n} ${kind}`).join(', ')}; ${totals.instancesStarted} HQ instance starts`,
    `${totals.changes} changes recorded at the sites (${totals.cleared} orders cleared), ${totals.checks} checks (${totals.enforced} where the bound applied), worst ${totals.worstMs} ms behind there`,
  ].join('\n'),
)
if (failed.length) {
  console.error(`FAILED seeds: ${failed.map((r) => r.seed).join(', ')}`)
  process.exit(1)
}
