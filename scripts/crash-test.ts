// `npm run test:crash`: the full crash test (tests/crash/harness.ts) on the gateway as a box
// runs it: bin/gateway.js (the compiled tree's bundle) with npm start's node flags (the
// collections at start included). ROUNDS (default 30) and SEED (default: random, printed
// first so a failing run can be repeated) from the environment.
import { startEntry, startFlags } from '../bench/start-flags.ts'
import { runCrashTest } from '../tests/crash/harness.ts'

const rounds = Number(process.env.ROUNDS ?? 30)
const seed = process.env.SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.SEED)
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seed)) {
  console.error('ROUNDS must be a positive integer and SEED an integer')
  process.exit(2)
}
console.log(`crash test: ${rounds} rounds, seed ${seed} (repeat with SEED=${seed})`)
const report = await runCrashTest({ rounds, seed, gateway: { cli: startEntry(), nodeFlags: startFlags() }, log: (line) => console.log(line) })
const acknowledged = report.rounds.reduce((sum, r) => sum + r.acknowledged, 0)
const restarts = report.rounds.map((r) => r.restartMs).sort((a, b) => a - b)
console.log(
  [
    `rounds ${report.rounds.length}, ${acknowledged} acknowledged requests (${Math.round(acknowledged / report.rounds.length)} per round), ` +
      `${report.acknowledgedChanges} acknowledged order changes, ${report.rounds.reduce((s, r) => s + r.pending, 0)} cut off by a kill`,
    `webhooks: ${report.deliveries} accepted, ${report.duplicates} redelivered, ${report.refused} refused on purpose; drained in ${report.drainMs} ms`,
    `in-flight requests that took effect: ${report.inFlightApplied}, of which never announced by a webhook: ${report.inFlightUnannounced.length}` +
      report.inFlightUnannounced.map((line) => `\n  ${line}`).join(''),
    `restart median ${restarts[Math.floor(restarts.length / 2)]} ms, max ${restarts.at(-1)} ms; total ${(report.durationMs / 1000).toFixed(1)} s`,
  ].join('\n'),
)
if (report.problems.length) {
  console.error(`FAILED (seed ${seed}): ${report.problems.length} problem(s)`)
  for (const problem of report.problems.slice(0, 50)) console.error(`- ${problem}`)
  process.exit(1)
}
console.log(`passed (seed ${seed})`)
