// The crash test scaled to fit `npm test`: a few rounds of SIGKILL under load against the
// real gateway process (the full 30 rounds: `npm run test:crash`). CRASH_ROUNDS and
// CRASH_SEED override; the seed is printed so a failure can be repeated.
import t from 'tap'
import { runCrashTest } from './harness.ts'

const rounds = Number(process.env.CRASH_ROUNDS ?? 4)
const seed = process.env.CRASH_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.CRASH_SEED)

t.test(`${rounds} rounds of SIGKILL under a mixed write load (seed ${seed})`, async (t) => {
  const report = await runCrashTest({ rounds, seed, log: (line) => t.comment(line) })
  t.equal(report.rounds.length, rounds, 'every round ran')
  t.ok(report.acknowledgedChanges > 0, `${report.acknowledgedChanges} acknowledged order changes`)
  t.ok(
    report.rounds.some((r) => r.pending > 0),
    'kills cut requests off mid-flight',
  )
  t.same(report.problems, [], `no acknowledged change lost, no seq reused, every change delivered (repeat with CRASH_SEED=${seed})`)
})
