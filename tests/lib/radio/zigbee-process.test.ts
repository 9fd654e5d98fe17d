// The Zigbee radio in its own process: real radio processes (lib/radio/zigbee-child.ts) with
// herdsman's real Controller over the fake coordinator, loaded into them by the test only
// (tests/helpers/zigbee-fake-child.ts). Restart delays run on a ManualClock.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { RadioEvents } from '../../../lib/radio/radio.ts'
import { ZigbeeProcessRadio, type ZigbeeProcessOptions } from '../../../lib/radio/zigbee-process.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'
import { repeater, TestChannel, tracker } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'

const address = '00:12:4b:00:aa:bb:cc:dd'
/** A radio process loads herdsman (about a second alone) on two shared cores. */
const processMs = 60_000

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** nodeFlags: before the fake coordinator's preload; logLevel: the gateway's (the radio process logs at it). */
async function setup(t: Test, options: Partial<ZigbeeProcessOptions> = {}, { nodeFlags = [] as string[], logLevel = 'info' } = {}) {
  const remote = await FakeRemote.open(t)
  const clock = new ManualClock()
  const channel = new TestChannel()
  const logs = memoryLogger(logLevel)
  const radio = new ZigbeeProcessRadio({
    dataDir: t.testdir(),
    clock,
    channel,
    log: logs.log,
    restartDelaysMs: [1000, 5000],
    ...remote.processOptions,
    execArgv: [...nodeFlags, ...remote.processOptions.execArgv],
    ...options,
  })
  const status: RadioEvents['status'][] = []
  radio.on('status', (event) => void status.push(event))
  t.teardown(() => radio.stop())
  return { remote, clock, channel, logs, radio, status }
}

t.test('a radio process killed with SIGKILL comes back after the first delay and paging is re-applied', async (t) => {
  const { remote, clock, radio, status, logs } = await setup(t)
  await radio.start()
  t.same(status, [{ up: true }])
  const first = remote.current!
  t.equal(radio.pid, first.pid, 'the radio runs in its own process')
  t.not(first.pid, process.pid)
  first.join(tracker)
  await until(() => first.sent.filter((f) => f.command === 'read').length >= 9, 'the interview', processMs)
  await radio.page(address, 60)
  await until(() => first.sent.some((f) => f.command === 'identify'), 'the page sent', processMs)
  t.same(
    first.sent.filter((f) => f.command === 'identify'),
    [{ ieee: tracker.ieee, cluster: 'genIdentify', command: 'identify', payload: { identifytime: 60 } }],
  )
  t.match(
    logs.lines().find((l) => l.msg === 'zigbee coordinator connected'),
    { radioPid: first.pid },
    'the radio process logs through the gateway',
  )

  process.kill(first.pid, 'SIGKILL')
  await until(() => status.length === 2, 'status down', processMs)
  t.same(status[1], { up: false, detail: 'radio process exited (signal SIGKILL)' })
  t.match((await radio.info()).supervision, { lastError: 'radio process exited (signal SIGKILL)', restarts: 0, nextAttemptAt: clock.now() + 1000, rss: null })
  await t.rejects(radio.page(address, 60), /zigbee radio is down/, 'commands fail fast while down')

  await clock.advance(999)
  t.equal(remote.children.length, 1, 'nothing before the delay')
  await clock.advance(1)
  await until(() => status.length === 3, 'status up again', processMs)
  t.same(status[2], { up: true })
  const second = remote.current!
  t.not(second.pid, first.pid)
  await until(() => second.sent.some((f) => f.command === 'identify'), 'the page re-sent', processMs)
  t.same(
    second.sent.filter((f) => f.command === 'identify').map((f) => f.payload),
    [{ identifytime: 59 }],
    'with what is left of its lease',
  )
  t.match((await radio.info()).supervision, { restarts: 1, nextAttemptAt: null, rss: Number })
  t.ok((await radio.info()).supervision!.rss! > 10_000_000, 'the radio process reports its memory')
  t.notOk(alive(first.pid))

  await t.rejects(radio.page(address, 0), RangeError, 'checked on the gateway side')
  await t.rejects(radio.page('00:12:4b:00:00:00:00:99', 30), { message: 'no zigbee device 00:12:4b:00:00:00:00:99' }, "the radio process's error comes back")
  await radio.cancel(address)
  // The fake coordinator reports over its own socket, maybe after the call's answer.
  await until(() => (second.sent.at(-1)?.payload as { identifytime?: number } | undefined)?.identifytime === 0, 'the cancel sent', processMs)
  await second.set('hangSends', true)
  const stuck = t.rejects(radio.page(address, 30), { message: 'the radio process did not answer page within 30000 ms' }, 'a call never waits for ever')
  await clock.advance(30_000)
  await stuck
})

t.test('with --expose-gc (as the gateway runs), the radio process collects the garbage of loading herdsman before it starts it', async (t) => {
  const { radio, logs } = await setup(t, {}, { nodeFlags: ['--expose-gc'], logLevel: 'debug' })
  await radio.start()
  const messages = logs.lines().map((line) => line.msg)
  const collected = messages.indexOf('garbage of loading herdsman collected')
  t.ok(collected >= 0, messages.join(', '))
  t.ok(collected < messages.indexOf('zigbee coordinator connected'), 'before herdsman starts')
  t.match(logs.lines()[collected], { heapBefore: Number, heapAfter: Number, pauseMs: Number })
})

t.test('a failed start restarts with backoff; an adapter disconnect ends the process and it comes back', async (t) => {
  const { remote, clock, radio, status } = await setup(t)
  remote.failStarts = 2
  await radio.start()
  t.same(
    status,
    [{ up: false, detail: 'Error: No such file or directory, cannot open /dev/ttyUSB0' }],
    'start returns after the first attempt; the gateway carries on',
  )
  t.match((await radio.info()).supervision, { lastError: /No such file/, nextAttemptAt: clock.now() + 1000 })
  await until(() => !alive(remote.children[0].pid), 'the failed process to end (the port with it)', processMs)

  await clock.advance(1000)
  await until(() => radio.supervision().nextAttemptAt !== null, 'the second failure', processMs)
  t.equal(remote.children.length, 2)
  t.equal(radio.supervision().nextAttemptAt, clock.now() + 5000, 'the next delay')
  await clock.advance(4999)
  t.equal(remote.children.length, 2)
  await clock.advance(1)
  await until(() => status.at(-1)?.up === true, 'up', processMs)
  t.equal(remote.children.length, 3)
  t.equal(radio.supervision().restarts, 2)

  const flapping = remote.current!.pid
  remote.current!.unplug()
  await until(() => status.at(-1)?.up === false, 'down', processMs)
  t.same(status.at(-1), { up: false, detail: 'adapter disconnected' }, 'the child says why')
  await until(() => !alive(flapping), 'the process to end', processMs)
  t.equal(radio.supervision().nextAttemptAt, clock.now() + 5000, 'a stick that drops as soon as it is up keeps backing off')
  await clock.advance(5000)
  await until(() => status.at(-1)?.up === true, 'up again', processMs)

  await clock.advance(60_000)
  const steady = remote.current!.pid
  remote.current!.unplug()
  await until(() => status.at(-1)?.up === false, 'down after a minute up', processMs)
  await until(() => !alive(steady), 'the process to end', processMs)
  t.equal(radio.supervision().nextAttemptAt, clock.now() + 1000, 'a radio that stayed up starts again from the first delay')
  await clock.advance(1000)
  await until(() => status.at(-1)?.up === true, 'up again', processMs)
})

t.test('a channel change restarts the radio process on the new channel; stop ends it', async (t) => {
  const { remote, channel, radio, status } = await setup(t)
  await radio.start()
  t.equal(remote.current!.channel, 15)
  const first = remote.current!.pid
  channel.set(20)
  await until(() => status.length === 3, 'the restart', processMs)
  t.same(status, [{ up: true }, { up: false, detail: 'changing channel' }, { up: true }])
  t.equal(remote.current!.channel, 20)
  t.equal((await radio.info()).channel, 20)
  t.notOk(alive(first), 'the old process ended')
  t.equal(radio.supervision().restarts, 0, 'a planned restart is no failure')

  const second = radio.pid!
  process.kill(second, 'SIGTERM')
  await radio.info()
  t.ok(alive(second), 'a SIGTERM to the process group (systemd stopping the gateway) is left to the gateway')
  t.equal((await radio.info()).up, true)
  await radio.stop()
  t.notOk(alive(second), 'stop() leaves no radio process behind')
  t.same(status.at(-1), { up: false, detail: 'stopped' })
  t.equal(radio.pid, undefined)
})

t.test('a radio process that does not stop in time is killed', async (t) => {
  const { remote, clock, radio, status } = await setup(t, { stopTimeoutMs: 5000 })
  await radio.start()
  const pid = radio.pid!
  await remote.current!.set('hangStop', true)
  const stopping = radio.stop()
  await clock.advance(5000)
  await stopping
  t.notOk(alive(pid), 'killed')
  t.same(status.at(-1), { up: false, detail: 'stopped' })
})

t.test('a gateway that dies takes its radio process with it (no orphan holding the port)', async (t) => {
  const remote = await FakeRemote.open(t)
  const host = fileURLToPath(new URL('../../helpers/zigbee-radio-host.ts', import.meta.url))
  const gateway = spawn(process.execPath, [...process.execArgv, host, t.testdir(), JSON.stringify(remote.processOptions.execArgv)], {
    env: remote.processOptions.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.teardown(() => void gateway.kill('SIGKILL'))
  const [line] = (await once(createInterface({ input: gateway.stdout! }), 'line')) as [string]
  const { radioPid } = JSON.parse(line) as { radioPid: number }
  t.ok(alive(radioPid))
  gateway.kill('SIGKILL')
  await until(() => !alive(radioPid), 'the radio process to end', processMs)
  t.pass('the radio process ended with its gateway')
})

t.test('the gateway side of the radio never loads herdsman (only the radio process does)', async (t) => {
  const modules = ['../../../lib/radio/create.ts', '../../../runtime/cli/radio-probe.ts', '../../../runtime/cli.ts'].map((file) =>
    fileURLToPath(new URL(file, import.meta.url)),
  )
  const script = `
    import { createRequire } from 'node:module'
    for (const file of ${JSON.stringify(modules)}) await import(file)
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('zigbee-herdsman'))
    console.log(JSON.stringify(loaded))`
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
  t.same(JSON.parse(line), [])
})

t.test("events carry the gateway clock's time of arrival, not the radio process's clock", async (t) => {
  const { remote, clock, radio } = await setup(t)
  const stamps: number[] = []
  const lastSeen: number[] = []
  for (const name of ['trackerStarted', 'trackerLocated', 'trackerCleared', 'trackerSeen', 'repeaterJoined', 'deviceLeft'] as const) {
    radio.on(name, (event) => {
      stamps.push(event.at)
      if ('lastSeen' in event && typeof event.lastSeen === 'number') lastSeen.push(event.lastSeen)
    })
  }
  await radio.start()
  remote.current!.join(repeater)
  await until(() => stamps.length > 0, 'an event from the radio process', processMs)
  // The ManualClock stands days away from the real clock the radio process reads.
  t.same(
    stamps,
    stamps.map(() => clock.now()),
  )
  for (const seen of lastSeen) t.ok(Math.abs(seen - clock.now()) < 60_000, "a repeater's lastSeen is carried over to the gateway clock")
})
