// Reading a process's memory from /proc, following the processes it starts, and deciding
// when a figure has settled (bench/process-memory.ts).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import t from 'tap'
import {
  childPids,
  countedOnce,
  isSettled,
  megabytes,
  parseRollupSharing,
  parseStatusMemory,
  PeakWatch,
  residentBytes,
  residentOf,
  sharingOf,
  settledReading,
  type Resident,
} from '../../bench/process-memory.ts'

const status = ['Name:\tnode', 'VmPeak:\t 1200000 kB', 'VmHWM:\t   90112 kB', 'VmRSS:\t   71680 kB', 'RssAnon:\t   30000 kB', ''].join('\n')

t.test('VmRSS and VmHWM are read in kB and given in bytes; a status without them is an error', async (t) => {
  t.same(parseStatusMemory(status), { rss: 71680 * 1024, peak: 90112 * 1024 })
  t.throws(() => parseStatusMemory('Name:\tkthreadd\nState:\tS (sleeping)\n'), /no VmRSS line/)
  t.equal(megabytes(71680 * 1024), 70)
  t.equal(megabytes(1.25 * 1048576), 1.3)
})

t.test('private and shared pages from smaps_rollup; shared pages counted once across processes', async (t) => {
  const rollup = [
    '00400000-7ffd52e7b000 ---p 00000000 00:00 0    [rollup]',
    'Rss:   44736 kB',
    'Pss:   41710 kB',
    'Shared_Clean:    3460 kB',
    'Shared_Dirty:     100 kB',
    'Private_Clean:   32748 kB',
    'Private_Dirty:    8528 kB',
    '',
  ].join('\n')
  t.same(parseRollupSharing(rollup), { private: (32748 + 8528) * 1024, shared: 3560 * 1024 })
  t.throws(() => parseRollupSharing('Rss: 1 kB\n'), /no Private_Clean line/)
  t.equal(
    countedOnce([
      { private: 40, shared: 35 },
      { private: 30, shared: 33 },
    ]),
    40 + 30 + 35,
    'the larger shared set, once',
  )
  t.equal(countedOnce([]), 0)
  const own = sharingOf(process.pid)!
  const rss = residentOf(process.pid)!.rss
  t.ok(own.private > 0 && own.private + own.shared <= rss * 1.1, 'private and shared make up (about) the resident set')
  t.equal(sharingOf(2 ** 22 + 7), undefined)
})

t.test('a live process has a resident figure and children; a gone one has neither', async (t) => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
  t.teardown(() => child.kill('SIGKILL'))
  await once(child, 'spawn')
  const own = residentOf(process.pid)!
  t.ok(own.rss > 0 && own.peak >= own.rss)
  t.ok(childPids(process.pid).includes(child.pid!), 'the child is listed')
  child.kill('SIGKILL')
  await once(child, 'exit')
  t.notOk(childPids(process.pid).includes(child.pid!), 'an ended child is not')
  t.equal(residentOf(2 ** 22 + 7), undefined, 'no such process')
  const { rss, peak } = residentBytes(process.pid)
  t.ok(rss > 0 && peak >= rss)
  t.throws(() => residentBytes(2 ** 22 + 7), 'residentBytes: the process must be running')
  t.same(childPids(2 ** 22 + 7), [])
})

t.test('PeakWatch keeps the highest mark of the process and of every child, also after a child ends', async (t) => {
  let children = [11]
  const marks = new Map<number, Resident>([
    [10, { rss: 50, peak: 60 }],
    [11, { rss: 70, peak: 80 }],
  ])
  const watch = new PeakWatch(10, 60_000, { children: () => children, read: (pid) => marks.get(pid) })
  marks.set(11, { rss: 90, peak: 95 })
  watch.sample()
  // The first radio process ends; another starts with a lower mark.
  marks.delete(11)
  children = [12]
  marks.set(12, { rss: 40, peak: 45 })
  marks.set(10, { rss: 55, peak: 65 })
  t.same(watch.stop(), {
    peak: 65,
    children: [
      { pid: 11, peak: 95 },
      { pid: 12, peak: 45 },
    ],
  })
})

t.test('a figure has settled once a whole window of readings stays within the tolerance', async (t) => {
  const mb = 1024 * 1024
  t.notOk(isSettled([], 3000, mb), 'no readings')
  t.notOk(
    isSettled(
      [
        { at: 0, bytes: 10 * mb },
        { at: 2000, bytes: 10 * mb },
      ],
      3000,
      mb,
    ),
    'not yet a whole window',
  )
  t.ok(
    isSettled(
      [
        { at: 0, bytes: 10 * mb },
        { at: 1500, bytes: 10.5 * mb },
        { at: 3000, bytes: 10.2 * mb },
      ],
      3000,
      mb,
    ),
  )
  t.notOk(
    isSettled(
      [
        { at: 0, bytes: 10 * mb },
        { at: 1500, bytes: 12 * mb },
        { at: 3000, bytes: 12 * mb },
      ],
      3000,
      mb,
    ),
    'still growing within the window',
  )
  t.ok(
    isSettled(
      [
        { at: 0, bytes: 5 * mb },
        { at: 1000, bytes: 12 * mb },
        { at: 2500, bytes: 12 * mb },
        { at: 4000, bytes: 12.4 * mb },
      ],
      3000,
      mb,
    ),
    'growth before the window does not count',
  )
})

t.test('readings far apart (a busy machine delays the timer): the window still spans two readings', async (t) => {
  const readings = [
    { at: 0, bytes: 1 },
    { at: 40, bytes: 2 },
  ]
  t.notOk(isSettled(readings, 30, 0), 'the last reading alone does not stand for the window')
  t.ok(isSettled([...readings, { at: 80, bytes: 2 }], 30, 0))
})

t.test('settledReading returns the last reading once settled, or when the time is up', async (t) => {
  let bytes = 0
  const steady = await settledReading(() => (bytes = Math.min(bytes + 1, 3)), { windowMs: 30, toleranceBytes: 0, intervalMs: 5, maxMs: 10_000 })
  t.match(steady, { bytes: 3, settled: true })
  let growing = 0
  const cut = await settledReading(() => ++growing, { windowMs: 30, toleranceBytes: 0, intervalMs: 5, maxMs: 40 })
  t.equal(cut.settled, false)
  t.equal(cut.bytes, growing)
})
