// `npm run test:nemesis`: the nemesis of issue 40 (tests/nemesis/harness.ts) over many seeded
// schedules against the real gateway process. SCHEDULES (default 500), SEED (the first
// schedule's seed; schedule i runs seed SEED+i; default random, printed first), STEPS (per
// schedule, default 16), WORKERS (schedules at once, default 1: each runs a gateway).
// MINUTES: start no new schedule after that many minutes (the figures then say how many ran).
// SEED=… SCHEDULES=1 repeats one schedule exactly. A failing schedule prints its seed, its
// steps and what each did; the run goes on and exits 1 at the end.
import { cpus } from 'node:os'
import { abandon, describeFailure, runSchedule, type NemesisReport } from '../tests/nemesis/harness.ts'

const schedules = Number(process.env.SCHEDULES ?? 500)
const firstSeed = process.env.SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.SEED)
const steps = Number(process.env.STEPS ?? 16)
const workers = Number(process.env.WORKERS ?? 1)
const stopAt = process.env.MINUTES === undefined ? Infinity : Date.now() + Number(process.env.MINUTES) * 60_000
if (![schedules, steps, workers].every((n) => Number.isInteger(n) && n >= 1) || !Number.isInteger(firstSeed)) {
  console.error('SCHEDULES, STEPS and WORKERS must be positive integers and SEED an integer')
  process.exit(2)
}
console.log(
  `nemesis: ${schedules} schedules of ${steps} steps from seed ${firstSeed} (schedule i: SEED=${firstSeed}+i), ${workers} at once on ${cpus().length} cores`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    abandon()
    process.exit(130)
  })
}

const started = Date.now()
const failed: NemesisReport[] = []
const totals = {
  schedules: 0,
  steps: 0,
  starts: 0,
  acknowledged: 0,
  backups: 0,
  restores: 0,
  restoresRefused: 0,
  tlsCompared: 0,
  tlsNotInBackup: 0,
  fullDisks: 0,
  deliveries: 0,
  slowStarts: 0,
}
let fullDiskSkipped: string | null = null
let next = 0

async function worker(): Promise<void> {
  while (next < schedules && Date.now() < stopAt) {
    const seed = firstSeed + next++
    const report = await runSchedule({ seed, steps, log: process.env.VERBOSE ? (line) => console.log(`  [${seed}] ${line}`) : undefined })
    totals.schedules++
    totals.steps += report.stepsRun
    for (const key of Object.keys(report.figures) as (keyof NemesisReport['figures'])[]) totals[key] += report.figures[key]
    fullDiskSkipped ??= report.fullDiskSkipped
    const status = report.problems.length ? 'FAILED' : 'ok'
    console.log(
      `seed ${seed}: ${status}, ${report.stepsRun} steps, ${report.figures.starts} starts, ${report.figures.restores} restores, ${(report.durationMs / 1000).toFixed(1)} s [${totals.schedules}/${schedules}]`,
    )
    if (report.problems.length) {
      failed.push(report)
      console.log(describeFailure(report))
    }
  }
}

await Promise.all(Array.from({ length: workers }, () => worker()))
const minutes = ((Date.now() - started) / 60_000).toFixed(1)
console.log(
  [
    `${totals.schedules} schedules, ${totals.steps} steps in ${minutes} min: ${totals.schedules - failed.length} clean, ${failed.length} failed`,
    `${totals.starts} gateway starts, ${totals.acknowledged} acknowledged order operations, ${totals.backups} backups, ${totals.restores} restores (${totals.restoresRefused} refused as documented: clock before the backup), ` +
      `TLS identity compared after ${totals.tlsCompared} restores (${totals.tlsNotInBackup} backups held no TLS key), ${totals.fullDisks} full disks, ${totals.deliveries} webhook deliveries; ${totals.slowStarts} starts took over 20 s and were tried again`,
    ...(fullDiskSkipped ? [`full-disk steps skipped: ${fullDiskSkipped}`] : []),
  ].join('\n'),
)
if (failed.length) {
  console.error(`FAILED seeds: ${failed.map((r) => r.seed).join(', ')}`)
  for (const report of failed) console.error(`- seed ${report.seed}: ${report.problems[0]}`)
  process.exit(1)
}
