// The capped start-up part of `npm run bench` (bench/startup-capped.ts) on a machine that
// cannot choose the cap: a fresh machine has no sysbench, and the bench must say so in one
// line and go on, not stop with a stack trace.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import t from 'tap'
import { chooseCap } from '../../bench/startup-capped.ts'
import { raspberryPi4Sysbench } from '../../bench/cpu-cap.ts'

const root = path.resolve(import.meta.dirname, '../..')
const notInstalled = () => {
  throw Object.assign(new Error('spawnSync sysbench ENOENT'), { code: 'ENOENT' })
}

t.test('the cap comes from BENCH_CPU_CAP, else from sysbench; without either the part is skipped with a reason', async (t) => {
  t.same(chooseCap({ BENCH_CPU_CAP: '0.3' }, notInstalled), { cap: { fraction: 0.3, source: 'BENCH_CPU_CAP' } })
  const measured = chooseCap({}, () => 'CPU speed:\n    events per second:  2955.66\n')
  t.ok('cap' in measured && Math.abs(measured.cap.fraction - raspberryPi4Sysbench / 2955.66) < 1e-9, 'the Pi over this machine')
  const missing = chooseCap({}, notInstalled)
  t.ok('skipped' in missing)
  if (!('skipped' in missing)) return
  t.match(missing.skipped, /^start-up under a CPU cap skipped: sysbench is not installed; apt-get install sysbench, or set BENCH_CPU_CAP/)
  t.notMatch(missing.skipped, /\n/, 'one line')
  const failing = chooseCap({}, () => {
    throw new Error('Command failed: sysbench cpu\nFATAL: something\n')
  })
  t.match('skipped' in failing && failing.skipped, /skipped: sysbench failed \(Command failed: sysbench cpu\)/)
})

t.test('npm run bench without sysbench: the capped part prints one line and the run does not fail', async (t) => {
  // PATH names an empty folder, so sysbench is not found whatever this machine has installed.
  const emptyPath = t.testdir({})
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: emptyPath, BENCH_ONLY: 'startup' }
  delete env.BENCH_CPU_CAP
  const child = spawn(process.execPath, ['--expose-gc', 'bench/run.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const [code] = await once(child, 'exit')
  t.equal(code, 0, `exit code (stderr: ${stderr})`)
  t.equal(stdout, '', 'nothing measured, nothing recorded')
  const lines = stderr.trim().split('\n')
  t.equal(lines.length, 1, `one line: ${stderr}`)
  t.match(lines[0], /^start-up under a CPU cap skipped: sysbench is not installed; apt-get install sysbench, or set BENCH_CPU_CAP/)
  t.notMatch(stderr, /^\s+at /m, 'no stack trace')
})

t.test('npm run bench:startup alone without sysbench: the same line, and a failing exit code', async (t) => {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: t.testdir({}) }
  delete env.BENCH_CPU_CAP
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'bench/startup.ts'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const [code] = await once(child, 'exit')
  t.equal(code, 1)
  t.match(stderr, /^start-up under a CPU cap skipped: sysbench is not installed[^\n]*\n$/)
})
