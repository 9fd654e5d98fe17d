// Choosing and applying the CPU cap that models a Raspberry Pi 4 (bench/cpu-cap.ts).
import { existsSync, readFileSync } from 'node:fs'
import { once } from 'node:events'
import t from 'tap'
import { CappedGroup, capFromScores, findCpuController, parseSysbenchEventsPerSecond, quotaFor, raspberryPi4Sysbench } from '../../bench/cpu-cap.ts'

const v1 = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n')
const v2 = '30 23 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n'

t.test('the cpu controller: cgroup v2 when it lists cpu, else the v1 mount with the cpu option', async (t) => {
  t.same(
    findCpuController(v2, () => 'cpuset cpu io memory pids\n'),
    { version: 2, mount: '/sys/fs/cgroup' },
  )
  t.same(
    findCpuController(v1, () => ''),
    { version: 1, mount: '/sys/fs/cgroup/cpu' },
    'v2 without cpu (it is bound to v1) falls back to v1',
  )
  t.same(
    findCpuController(v1, () => undefined),
    { version: 1, mount: '/sys/fs/cgroup/cpu' },
  )
  t.equal(
    findCpuController(v2, () => 'memory pids'),
    undefined,
    'no cpu controller anywhere',
  )
  t.equal(
    findCpuController('', () => 'cpu'),
    undefined,
  )
  t.notOk(
    findCpuController('33 31 0:30 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct', () => ''),
    'cpuacct is not cpu',
  )
})

t.test('a share of one CPU becomes a quota over a 10 ms period; nonsense is refused', async (t) => {
  t.same(quotaFor(0.5), { quotaUs: 5000, periodUs: 10_000 })
  t.same(quotaFor(0.25, 100_000), { quotaUs: 25_000, periodUs: 100_000 })
  t.same(quotaFor(0.01), { quotaUs: 1000, periodUs: 10_000 }, 'the kernel minimum of 1 ms')
  t.throws(() => quotaFor(0), RangeError)
  t.throws(() => quotaFor(Number.NaN), RangeError)
})

t.test("the cap is the Pi's score over this machine's, never more than a whole CPU", async (t) => {
  const output = 'CPU speed:\n    events per second:  2420.94\n\nGeneral statistics:\n    total time: 10.0004s\n'
  t.equal(parseSysbenchEventsPerSecond(output), 2420.94)
  t.throws(() => parseSysbenchEventsPerSecond('FATAL: unknown test'), /no "events per second"/)
  t.equal(capFromScores(raspberryPi4Sysbench, raspberryPi4Sysbench * 4), 0.25)
  t.equal(capFromScores(raspberryPi4Sysbench, 1000), 1, 'a machine slower than the Pi runs uncapped')
  t.throws(() => capFromScores(raspberryPi4Sysbench, 0), RangeError)
})

t.test('a capped cgroup: the program runs inside it from the start, and the cgroup goes after', async (t) => {
  let group: CappedGroup
  try {
    group = CappedGroup.create(0.5, `gateway-bench-test-${process.pid}`)
  } catch (error) {
    // Not root, or no writable cpu controller: the error says so (what the bench prints).
    t.match((error as Error).message, /cgroup/)
    return
  }
  t.teardown(async () => {
    if (existsSync(group.dir)) await group.remove()
  })
  const quota = group.version === 2 ? readFileSync(`${group.dir}/cpu.max`, 'utf8').trim() : readFileSync(`${group.dir}/cpu.cfs_quota_us`, 'utf8').trim()
  t.equal(quota, group.version === 2 ? '5000 10000' : '5000')
  const child = group.start('/bin/cat', ['/proc/self/cgroup'], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  await once(child, 'exit')
  const name = group.dir.split('/').at(-1)!
  t.ok(
    output.split('\n').some((line) => (group.version === 2 ? line.startsWith('0::') : /:cpu[,:]/.test(line)) && line.endsWith(`/${name}`)),
    `cat ran inside ${name}: ${output}`,
  )
  await group.remove()
  t.notOk(existsSync(group.dir))
})

t.test('a process left in the group is named, not hidden', async (t) => {
  let group: CappedGroup
  try {
    group = CappedGroup.create(0.5)
  } catch {
    return t.pass('no writable cpu controller here (the test above checks the message)')
  }
  const sleeper = group.start('/bin/sleep', ['30'], { stdio: 'ignore' })
  t.teardown(async () => {
    sleeper.kill('SIGKILL')
    await once(sleeper, 'exit').catch(() => {})
    if (existsSync(group.dir)) await group.remove()
  })
  // The shell joins the group, then becomes sleep.
  while (
    !readFileSync(`${group.dir}/cgroup.procs`, 'utf8').split('\n').includes(String(sleeper.pid)) ||
    !readFileSync(`/proc/${sleeper.pid}/cmdline`, 'utf8').startsWith('/bin/sleep')
  ) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await t.rejects(group.remove(), new RegExp(`processes the gateway left behind in .*: ${sleeper.pid} \\(/bin/sleep 30\\)`))
})
