// The radio process as a box runs it: the compiled tree (npm start, the systemd unit) forks
// build/lib/radio/zigbee-child.js, and lib/radio/zigbee-process-flags.ts gives it --lite-mode.
// Built from a fresh copy of the project in a temporary directory; the fake coordinator is
// compiled too (tests/helpers/compiled-fake-coordinator.ts: under lite mode no .ts module
// loads), through the memory benchmark's preload. herdsman's real Controller comes up
// interpreted, a tracker joins and is interviewed, its message reaches the gateway side, a
// page goes out and a backup is written; the fake coordinator reports that the process has
// no WebAssembly, which only lite mode takes away. herdsman's real ember and zstack adapters
// run interpreted too, on a pseudo-terminal nobody answers on.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { copyForBuild } from '../../helpers/built-project.ts'
import { compileFakeCoordinator, fakeCoordinatorSources } from '../../helpers/compiled-fake-coordinator.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { PseudoTerminal } from '../../helpers/pty.ts'
import { until, untilProgress } from '../../helpers/until.ts'
import { childrenCpuTicks } from '../../helpers/cpu-progress.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'
import { TestChannel, tracker } from '../../helpers/zigbee-radio.ts'
import type { ZigbeeProcessOptions, ZigbeeProcessRadio } from '../../../lib/radio/zigbee-process.ts'
import type { RadioEvents } from '../../../lib/radio/radio.ts'

/** A radio process loads herdsman (about a second alone) on two shared cores. */
const processMs = 60_000

const copy = copyForBuild()
t.teardown(copy.remove)
const built = copy.build()
if (built.status !== 0) throw new Error(`the build failed: ${built.stderr}`)
// Inside the copy, beside its node_modules (a link to the project's): herdsman resolves.
const [gatewayPreload] = compileFakeCoordinator(path.join(copy.root, 'compiled-aids'), copy.root, [fakeCoordinatorSources.gatewayPreload])
const compiled = (await import(pathToFileURL(path.join(copy.root, 'build/lib/radio/zigbee-process.js')).href)) as {
  ZigbeeProcessRadio: new (options: ZigbeeProcessOptions) => ZigbeeProcessRadio
}

async function compiledRadio(t: Test, preload: string) {
  const remote = await FakeRemote.open(t)
  const dataDir = t.testdir()
  const radio = new compiled.ZigbeeProcessRadio({
    dataDir,
    clock: new ManualClock(),
    channel: new TestChannel(),
    log: memoryLogger('warn').log,
    execArgv: ['--import', preload],
    env: { ...process.env, ZIGBEE_FAKE_CONTROL: remote.socketPath },
  })
  t.teardown(() => radio.stop())
  return { remote, radio, dataDir }
}

const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')

t.test('the compiled radio process runs under lite mode: herdsman up, a tracker heard, a page sent, a backup written', async (t) => {
  const { remote, radio, dataDir } = await compiledRadio(t, gatewayPreload)
  const located: RadioEvents['trackerLocated'][] = []
  radio.on('trackerLocated', (event) => void located.push(event))
  await radio.start()
  t.ok((await radio.info()).up, "herdsman's Controller is up")
  const child = remote.current!
  t.equal(child.pid, radio.pid, 'the fake coordinator runs in the radio process')
  t.ok(commandLine(child.pid).includes(path.join(copy.root, 'build/lib/radio/zigbee-child.js')), 'the compiled child')
  t.ok(commandLine(child.pid).includes('--lite-mode'), 'given --lite-mode')
  t.equal(child.webAssembly, false, 'lite mode is on in that process: no WebAssembly')

  child.join(tracker)
  await until(() => child.sent.filter((frame) => frame.command === 'read').length >= 9, 'the interview', processMs)
  child.command({ type: 'command', device: tracker, cluster: 'trkTracker', command: 'located', payload: { tableId: 12 } })
  await until(() => located.length === 1, 'the tracker message', processMs)
  t.match(located[0], { address: '00:12:4b:00:aa:bb:cc:dd', table: 12 })
  await radio.page('00:12:4b:00:aa:bb:cc:dd', 30)
  await until(() => child.sent.some((frame) => frame.command === 'identify'), 'the page sent', processMs)
  t.same(child.sent.find((frame) => frame.command === 'identify')?.payload, { identifytime: 30 })
  t.equal(await radio.backupCoordinator(), true, 'a backup')
  t.match(
    readFileSync(path.join(dataDir, 'zigbee', 'database.db'), 'utf8'),
    new RegExp(`"ieeeAddr":"${tracker.ieee}"`),
    "herdsman's database, with the tracker",
  )
})

t.test('the compiled radio process given a TypeScript preload runs without lite mode, and comes up', async (t) => {
  const { remote, radio } = await compiledRadio(t, path.join(import.meta.dirname, '../../helpers/zigbee-fake-child.ts'))
  await radio.start()
  t.ok((await radio.info()).up)
  t.notOk(commandLine(remote.current!.pid).includes('--lite-mode'))
  t.equal(remote.current!.webAssembly, true, 'WebAssembly there for the type stripping the preload needs')
})

t.test("herdsman's real ember and zstack adapters start interpreted: each reaches the stick and fails as from the sources", async (t) => {
  // The first frame each writes at a start: ember an ASH reset, zstack a ZNP ping. A
  // pseudo-terminal has no modem lines: Z-Stack's bootloader skip fails at once; ember would
  // try for about 25 s, so the radio's start timeout ends it.
  const adapters = [
    { adapter: 'ember', first: '1ac038bc7e', ended: /did not start within 4 s/ },
    { adapter: 'zstack', first: 'fe00210120', ended: /cannot set|Failed to connect/ },
  ] as const
  for (const { adapter, first, ended } of adapters) {
    const stick = await PseudoTerminal.open()
    t.teardown(() => stick.close())
    const logs = memoryLogger('warn')
    const down: string[] = []
    // The radio's start timeout runs on a manual clock, let go only once the adapter has
    // reached the stick: loading herdsman interpreted takes seconds on a busy machine, and a
    // real 4 s ended the process before its first frame (then nothing came for a minute).
    const clock = new ManualClock()
    const radio = new compiled.ZigbeeProcessRadio({
      adapter,
      serialPort: stick.device,
      dataDir: t.testdir(),
      clock,
      channel: new TestChannel(),
      log: logs.log,
      startWaitMs: 0,
      startTimeoutMs: 4000,
      stopTimeoutMs: 15_000,
      restartDelaysMs: [600_000],
    })
    radio.on('status', (event) => void (!event.up && event.detail && down.push(event.detail)))
    // A process still starting may not answer a clean stop: the stop timeout is moved at once.
    t.teardown(async () => {
      const stopped = radio.stop()
      await clock.advance(15_000)
      await stopped
    })
    const started = radio.start()
    await clock.advance(0)
    await started
    t.ok(commandLine(radio.pid!).includes('--lite-mode'), `${adapter}: under lite mode`)
    // Waits while the radio process keeps getting CPU (childrenCpuTicks): on a busy machine
    // loading herdsman interpreted takes minutes of wall time; a process idle for a minute is stuck.
    await untilProgress(() => stick.count(Buffer.from(first, 'hex')) >= 1, childrenCpuTicks, `the ${adapter} adapter to reach the stick`)
    if (adapter === 'ember') await clock.advance(4000)
    await untilProgress(() => down.length >= 1, childrenCpuTicks, `the ${adapter} attempt to end`)
    t.match(down[0], ended, `${adapter}: ${down[0]}`)
    t.notMatch(logs.text(), /WebAssembly|ReferenceError/)
    await radio.stop()
  }
})
