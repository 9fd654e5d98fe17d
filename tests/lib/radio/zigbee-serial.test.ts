// Below the adapter: herdsman's REAL ember and zstack adapters in real radio processes, on a
// pseudo-terminal standing in for the stick (tests/helpers/pty.ts). Nothing answers as a
// coordinator would, so no start succeeds; what is tested is that every failure ends its
// process, the port is released, and the next attempt reaches the port again (ember writes
// an ASH RST frame, zstack a ZNP ping, at each attempt that reaches it). The radio's own
// timers (start timeout, restart delay) run on a manual clock the test moves once an attempt
// has done what it waits for: loading herdsman takes seconds on a busy machine, and a real
// start timeout of a few seconds ended attempts before they reached the stick. The adapters
// run on their real clocks.
import { rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { RadioEvents } from '../../../lib/radio/radio.ts'
import { ZigbeeProcessRadio, type ZigbeeProcessOptions } from '../../../lib/radio/zigbee-process.ts'
import { PseudoTerminal } from '../../helpers/pty.ts'
import { TestChannel } from '../../helpers/zigbee-radio.ts'
import { untilProgress } from '../../helpers/until.ts'
import { childrenCpuTicks } from '../../helpers/cpu-progress.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

const ashReset = Buffer.from('1ac038bc7e', 'hex')
const znpPing = Buffer.from('fe00210120', 'hex')
/**
 * Waits while the test's child processes (the radio process, the stick's relay) keep getting
 * CPU: on a busy machine starting Node and herdsman takes minutes of wall time; an attempt
 * that does no work for a minute is stuck.
 */
const whileWorking = (condition: () => boolean, what: string) => untilProgress(condition, childrenCpuTicks, what)
/** On the manual clock: longer than any start timeout here, so moving one never restarts. */
const restartMs = 60_000
const stopTimeoutMs = 15_000

async function setup(t: Test, options: Pick<ZigbeeProcessOptions, 'adapter' | 'serialPort'> & Partial<ZigbeeProcessOptions>) {
  const logs = memoryLogger('warn')
  const clock = new ManualClock()
  const radio = new ZigbeeProcessRadio({
    dataDir: t.testdir(),
    clock,
    channel: new TestChannel(),
    log: logs.log,
    restartDelaysMs: [restartMs],
    startWaitMs: 0,
    stopTimeoutMs,
    ...options,
  })
  const down: string[] = []
  radio.on('status', (event: RadioEvents['status']) => void (!event.up && event.detail && down.push(event.detail)))
  // A process still starting may not answer a clean stop: the stop timeout is moved at once.
  t.teardown(async () => {
    const stopped = radio.stop()
    await clock.advance(stopTimeoutMs)
    await stopped
  })
  const start = async () => {
    const started = radio.start()
    await clock.advance(0)
    await started
  }
  /** The start timeout passes (ending an attempt that is not up), then the delay before the next. */
  const giveUp = () => clock.advance(options.startTimeoutMs ?? 0)
  const restart = () => clock.advance(restartMs)
  return { radio, down, logs, start, giveUp, restart }
}

async function openTerminal(t: Test): Promise<PseudoTerminal> {
  const terminal = await PseudoTerminal.open()
  t.teardown(() => terminal.close())
  return terminal
}

t.test('ember, no answer: each attempt is ended, the port released, and the next attempt reaches it again', async (t) => {
  const stick = await openTerminal(t)
  const { down, logs, start, giveUp, restart } = await setup(t, { adapter: 'ember', serialPort: stick.device, startTimeoutMs: 4000 })
  await start()
  await whileWorking(() => stick.count(ashReset) >= 1, 'the first attempt to reach the stick')
  // ember alone tries for about 25 s of its own time; the test moves the start timeout at once.
  await giveUp()
  await whileWorking(() => down.length >= 1, 'the first attempt to be given up')
  t.equal(down[0], 'the radio did not start within 4 s')
  const before = stick.count(ashReset)
  await restart()
  await whileWorking(() => stick.count(ashReset) > before, 'the next attempt to reach the stick')
  t.pass('the next attempt opened the port again')
  t.notMatch(logs.text(), /Cannot lock port/)
})

t.test('zstack: a failed start ends its process; the next attempt reaches the port again', async (t) => {
  const stick = await openTerminal(t)
  const { radio, down, start, restart } = await setup(t, { adapter: 'zstack', serialPort: stick.device })
  await start()
  await whileWorking(() => down.length >= 1 && stick.count(znpPing) >= 1, 'the first attempt')
  // A pseudo-terminal has no modem lines: Z-Stack's bootloader skip fails (the start timeout
  // is never moved here).
  t.match(down[0], /cannot set|Failed to connect/)
  const before = stick.count(znpPing)
  await restart()
  await whileWorking(() => stick.count(znpPing) > before, 'the next attempt to reach the stick')
  t.ok(radio.supervision().restarts >= 1)
})

t.test('deCONZ, no answer: its leftovers (timers, queues that keep writing) end with the process', async (t) => {
  const stick = await openTerminal(t)
  const { radio, down, start, giveUp, restart } = await setup(t, { adapter: 'deconz', serialPort: stick.device, startTimeoutMs: 3000 })
  // The first request deCONZ's driver writes at each start (SLIP-framed, 0xC0 first).
  const firstRequest = Buffer.from('c00b01', 'hex')
  await start()
  const pid = radio.pid
  await whileWorking(() => stick.count(firstRequest) >= 1, 'the first attempt to reach the stick')
  await giveUp()
  await whileWorking(() => down.length >= 1, 'the first attempt to be given up')
  const before = stick.count(firstRequest)
  await restart()
  await whileWorking(() => stick.count(firstRequest) > before && radio.pid !== undefined && radio.pid !== pid, 'the next attempt, in a new process')
  t.pass('each attempt is one driver in one process: never several fighting over the port')
})

t.test('ember, a wrong answer: garbage back from the stick is a failed start, not a stuck radio', async (t) => {
  const stick = await openTerminal(t)
  const { down, start, giveUp, restart } = await setup(t, { adapter: 'ember', serialPort: stick.device, startTimeoutMs: 6000 })
  // A Z-Stack stick (or the wrong baud rate) answers with bytes that are no ASH frame.
  let answers = 0
  const answer = setInterval(() => stick.count(ashReset) > 0 && (stick.write(Buffer.from('fe0161010059fe0161010059', 'hex')), answers++), 200)
  t.teardown(() => clearInterval(answer))
  await start()
  await whileWorking(() => answers >= 3, 'garbage answered to the adapter')
  await giveUp()
  await whileWorking(() => down.length >= 1, 'the attempt to fail')
  const before = stick.count(ashReset)
  await restart()
  await whileWorking(() => stick.count(ashReset) > before, 'the next attempt')
  t.pass('the next attempt reached the stick')
})

t.test('a port that appears later is used; a port closed mid-run ends the attempt and the stick is found again', async (t) => {
  const link = path.join(os.tmpdir(), `zigbee-stick-${process.pid}`)
  rmSync(link, { force: true })
  t.teardown(() => rmSync(link, { force: true }))
  const { radio, down, start, restart } = await setup(t, { adapter: 'ember', serialPort: link, startTimeoutMs: 30_000 })
  await start()
  await whileWorking(() => down.length >= 1, 'the first attempt to fail')
  t.equal(down[0], `no such port: ${link}`, 'no stick yet')

  const first = await PseudoTerminal.open()
  first.linkAt(link)
  await restart()
  await whileWorking(() => first.count(ashReset) >= 1, 'an attempt to reach the stick once it appears')
  const pid = radio.pid
  await first.close()
  await whileWorking(() => radio.pid !== pid, 'the attempt to end with its port')

  const second = await openTerminal(t)
  second.linkAt(link)
  await restart()
  await whileWorking(() => second.count(ashReset) >= 1, 'the replugged stick to be reached')
  t.pass('the stick on its new device node was reached')
})
