// `npm run test:loaded` (scripts/test-loaded.ts): the suite runs while the load runs, the load
// is stopped whatever the suite does (passes, fails, cannot start, is interrupted), and the
// report says how long it took and how it ended. A stand-in suite (a short Node script that
// checks the load's processes are there) replaces `npm test`; the loads are real, on one core.
import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'
import { ownLoad, runLoaded, stressNgArgs, stressNgDep, stressNgLoad, type Load } from '../../scripts/test-loaded.ts'
import { findExecutable } from '../helpers/system-deps.ts'
import { until } from '../helpers/until.ts'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Some process of the group led by `pid` is still there. */
const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}
/** Every process of the load, workers included, has ended. */
const loadGone = () => until(() => !loaded!.pids.some(groupAlive), 'every process of the load to end')

/** A suite that fails unless every process of the load is there, then ends with `code`. */
const suite = (code: number) => [
  process.execPath,
  '-e',
  `for (const pid of process.env.TEST_LOAD_PIDS.split(' ')) process.kill(Number(pid), 0); process.exit(${code})`,
]

let loaded: Load | undefined

function remember(make: () => Load): () => Load {
  return () => (loaded = make())
}

t.test('a passing suite under our own load: the load ran throughout and is gone afterwards', async (t) => {
  const lines: string[] = []
  const result = await runLoaded({ suite: suite(0), load: remember(() => ownLoad(1)), log: (line) => lines.push(line) })
  t.match(result, { code: 0, loadedThroughout: true })
  t.equal(loaded!.pids.length, 2, 'a busy loop and a disk writer')
  await loadGone()
  t.match(lines[0], /^test:loaded: load: our own load: 1 busy loop/)
  t.match(lines.at(-1), /^test:loaded: the suite passed in \d+\.\d min \(\d+ s\) on \d+ cores$/)
})

t.test('a failing suite: its exit code, and the load stopped', async (t) => {
  const lines: string[] = []
  const result = await runLoaded({ suite: suite(3), load: remember(() => ownLoad(1)), log: (line) => lines.push(line) })
  t.equal(result.code, 3)
  await loadGone()
  t.match(lines.at(-1), /the suite FAILED \(exit code 3\)/)
})

t.test('a suite that cannot start: a failure, and the load stopped', async (t) => {
  const lines: string[] = []
  const result = await runLoaded({ suite: ['/nonexistent/npm'], load: remember(() => ownLoad(1)), log: (line) => lines.push(line) })
  t.equal(result.code, 1)
  await loadGone()
  t.match(lines.join('\n'), /the suite could not be started: spawn \/nonexistent\/npm ENOENT/)
})

t.test('interrupted: the suite is stopped with what it started (npm does not pass a signal on), then the load', async (t) => {
  const controller = new AbortController()
  const lines: string[] = []
  const dir = t.testdir()
  // A stand-in for npm: it starts a child (tap), and on SIGTERM ends without passing it on.
  const npm = `process.on('SIGTERM', () => process.exit(143)); const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']); require('node:fs').writeFileSync(${JSON.stringify(`${dir}/child`)}, String(c.pid)); setInterval(() => {}, 1000)`
  const running = runLoaded({
    suite: [process.execPath, '-e', npm],
    load: remember(() => ownLoad(1)),
    log: (line) => lines.push(line),
    signal: controller.signal,
  })
  await until(() => existsSync(`${dir}/child`), 'the suite to have started its child')
  const child = Number(readFileSync(`${dir}/child`, 'utf8'))
  controller.abort()
  const result = await running
  await until(() => !alive(child), "the suite's child to end")
  t.not(result.code, 0)
  await loadGone()
  t.match(lines.at(-1), /the suite was INTERRUPTED \(exit code \d+\)/)
})

t.test('a load that ends early is reported: the run was not loaded throughout', async (t) => {
  const lines: string[] = []
  const killFirst = `process.kill(-Number(process.env.TEST_LOAD_PIDS.split(' ')[0]), 'SIGKILL'); setTimeout(() => {}, 500)`
  const result = await runLoaded({ suite: [process.execPath, '-e', killFirst], load: remember(() => ownLoad(1)), log: (line) => lines.push(line) })
  t.match(result, { code: 0, loadedThroughout: false })
  t.match(lines.join('\n'), /ENDED BEFORE THE SUITE/)
})

t.test('stress-ng: a CPU worker per core and a disk writer, ending by itself if orphaned', async (t) => {
  t.same(stressNgArgs(2, '/tmp/x'), ['--cpu', '2', '--hdd', '1', '--hdd-bytes', '64M', '--temp-path', '/tmp/x', '--timeout', '4h', '--quiet'])
})

const executable = findExecutable(stressNgDep)
t.test(
  'under stress-ng: the load ran throughout, and its workers went with it',
  { skip: executable ? false : 'stress-ng is not installed here (npm run test:loaded installs it where it can)' },
  async (t) => {
    const lines: string[] = []
    const result = await runLoaded({ suite: suite(0), load: remember(() => stressNgLoad(executable!, 1)), log: (line) => lines.push(line) })
    t.match(result, { code: 0, loadedThroughout: true })
    await loadGone()
    t.match(lines[0], /^test:loaded: load: stress-ng --cpu 1 --hdd 1/)
  },
)
