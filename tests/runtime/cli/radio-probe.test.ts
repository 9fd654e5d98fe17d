// `gateway radio probe`: one start of the radio in a radio process, and one line saying what
// is wrong. Real radio processes: herdsman's real ember adapter on a pseudo-terminal (no
// answer, port busy, wrong adapter type), a missing port, and the fake coordinator for an
// answer. Discovery is given by the test (a pseudo-terminal has no USB identity).
import { SerialPort } from 'zigbee-herdsman/dist/adapter/serialPort.js'
import t, { type Test } from 'tap'
import { parseConfig } from '../../../lib/config.ts'
import type { Candidate } from '../../../lib/radio/zigbee-diagnosis.ts'
import { SettingsService } from '../../../lib/settings/service.ts'
import { Store } from '../../../lib/store/db.ts'
import { probeRadio, type ProbeOptions } from '../../../runtime/cli/radio-probe.ts'
import { runCli, startGatewayProcess } from '../../helpers/process.ts'
import { PseudoTerminal } from '../../helpers/pty.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'
import { untilProgress } from '../../helpers/until.ts'
import { childrenCpuTicks } from '../../helpers/cpu-progress.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

const ashReset = Buffer.from('1ac038bc7e', 'hex')

/**
 * The probe's limit runs on a manual clock that only the test moves: in real time it counts
 * from starting the radio process (Node and herdsman), which on a busy machine took longer
 * than the limit, and the probe then said "no answer" for a port it never reached. Each
 * attempt here ends by itself (no such port, port busy) or is ended by the test, moving the
 * clock once the start has reached the stick.
 */
function probe(t: Test, options: Partial<ProbeOptions> & { radio?: Record<string, unknown>; found?: Candidate[]; clock?: ManualClock }) {
  const config = parseConfig({ dataDir: t.testdir(), radio: { kind: 'zigbee', ...options.radio } })
  const { clock = new ManualClock(), process: processOptions, ...rest } = options
  return probeRadio({ config, timeoutMs: 4000, list: async () => options.found ?? [], ...rest, process: { clock, ...processOptions } })
}

/** A probe on a silent stick, ended by its limit once the start has written to the stick. */
async function probeSilent(t: Test, terminal: PseudoTerminal, options: Parameters<typeof probe>[1]) {
  const clock = new ManualClock()
  const before = terminal.count(ashReset)
  const probing = probe(t, { ...options, clock })
  // While the radio process keeps getting CPU: starting it takes minutes on a busy machine.
  await untilProgress(() => terminal.count(ashReset) > before, childrenCpuTicks, 'the start to have reached the stick')
  await clock.advance(options.timeoutMs ?? 4000)
  return probing
}

async function stick(t: Test): Promise<PseudoTerminal> {
  const terminal = await PseudoTerminal.open()
  t.teardown(() => terminal.close())
  return terminal
}

t.test('a missing port', async (t) => {
  const result = await probe(t, { radio: { adapter: 'ember', serialPort: '/dev/ttyUSB-probe-missing' } })
  t.equal(result.ok, false)
  t.equal(result.verdict, 'no such port: /dev/ttyUSB-probe-missing does not exist (is the stick plugged in? see the list above)')
  t.equal(result.candidates, 'no serial ports or network coordinators found')
  t.equal(
    result.replacement,
    'replacement stick: a blank ember stick takes the network over from a coordinator_backup.json written by an EmberZNet coordinator, without pairing again; a backup of another family cannot be used',
  )
})

t.test('an EmberZNet stick on a data dir with a Z-Stack coordinator backup: the probe says it cannot take the network over, and what to do', async (t) => {
  const dataDir = t.testdir({
    zigbee: {
      'network.json': JSON.stringify({ networkKey: '00112233445566778899aabbccddeeff', extendedPanId: '0102030405060708', panId: 4660 }),
      'coordinator_backup.json': JSON.stringify({
        metadata: { format: 'zigpy/open-coordinator-backup', version: 1, internal: { znpVersion: 1 } },
        stack_specific: { zstack: {} },
        coordinator_ieee: '00124b0001020304',
        pan_id: '1234',
        extended_pan_id: '0102030405060708',
        channel: 11,
        channel_mask: [11],
        network_key: { key: '00112233445566778899aabbccddeeff', sequence_number: 0, frame_counter: 10 },
        devices: [],
      }),
    },
  })
  const config = parseConfig({ dataDir, radio: { kind: 'zigbee', adapter: 'ember', serialPort: '/dev/ttyUSB-probe-missing' } })
  // The refusal ends the start by itself; the limit, on a manual clock, cannot end it first.
  const result = await probeRadio({ config, timeoutMs: 4000, list: async () => [], process: { clock: new ManualClock() } })
  t.equal(result.ok, false)
  t.match(
    result.verdict,
    /^cannot start on this network: coordinator_backup.json was written by a Z-Stack coordinator, and an EmberZNet stick \(adapter ember\) cannot take over that network\. To keep the network, use a Z-Stack or deCONZ stick/,
  )
})

t.test('a stick that does not answer, and one that looks like another adapter type', async (t) => {
  const terminal = await stick(t)
  const silent = await probeSilent(t, terminal, { radio: { adapter: 'ember', serialPort: terminal.device } })
  t.match(silent.verdict, new RegExp(`^no answer at 115200 baud from ${terminal.device}: wrong baud rate`))
  t.equal(silent.attempt, `trying ember on ${terminal.device} (up to 4 s)`)

  const found = [{ name: 'Sonoff Zigbee 3.0 USB Dongle Plus (ITead)', path: terminal.device, adapter: 'zstack' }]
  const wrong = await probeSilent(t, terminal, { radio: { adapter: 'ember', serialPort: terminal.device }, found })
  t.equal(wrong.verdict, `wrong adapter type: ${terminal.device} looks like a zstack stick (Sonoff Zigbee 3.0 USB Dongle Plus (ITead)), configured ember`)
  t.match(wrong.candidates, /adapter zstack/)
})

t.test('a data dir whose network was formed on the old default keeps preset A: the probe opens the settings as the gateway does', async (t) => {
  const dataDir = t.testdir({ zigbee: { 'network.json': '{}' } })
  const config = parseConfig({ dataDir, radio: { kind: 'zigbee', adapter: 'ember', serialPort: '/dev/ttyUSB-probe-missing' } })
  await probeRadio({ config, timeoutMs: 4000, list: async () => [] })
  const settings = await SettingsService.open(await new Store({ dataDir }).collection('settings'))
  t.equal(settings.get().zigbeePreset, 'A', 'not B, which would move the formed network at the next start')
})

t.test('a port another program holds', async (t) => {
  const terminal = await stick(t)
  const holder = new SerialPort({ path: terminal.device, baudRate: 115200, autoOpen: false })
  await new Promise<void>((resolve, reject) => holder.open((error) => (error ? reject(error) : resolve())))
  t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())))
  const result = await probe(t, { device: terminal.device, adapter: 'ember' })
  t.equal(result.verdict, `port busy: another program holds ${terminal.device} (a running gateway, zigbee2mqtt, ModemManager?)`)
})

t.test('a coordinator that answers', async (t) => {
  const remote = await FakeRemote.open(t)
  // The fake answers at once; the limit (on the manual clock) never passes.
  const result = await probe(t, { radio: { adapter: 'zstack', serialPort: '/dev/ttyUSB0' }, process: remote.processOptions, timeoutMs: 120_000 })
  t.same(result, {
    ok: true,
    candidates: 'no serial ports or network coordinators found',
    attempt: 'trying zstack on /dev/ttyUSB0 (up to 120 s)',
    verdict: 'ok: zstack on /dev/ttyUSB0 answers: fake (adapter zstack), firmware unknown, IEEE 00:12:4b:00:01:02:03:04, channel 15',
    replacement:
      'replacement stick: a blank zstack stick takes the network over from coordinator_backup.json (written by a Z-Stack, EmberZNet or deCONZ coordinator), without pairing again',
  })
  t.equal(remote.children.length, 1, 'one attempt only')
})

t.test('the CLI command: bad flags are refused before anything is tried', async (t) => {
  const dir = t.testdir({})
  const result = await runCli(['radio', 'probe', '--adapter', 'xbee', '--data-dir', dir])
  t.equal(result.code, 1)
  t.match(result.stderr, /--adapter must be one of zstack, ember/)
  const baud = await runCli(['radio', 'probe', '--baud', 'fast', '--data-dir', dir])
  t.match(baud.stderr, /--baud takes a number/)
})

t.test('the CLI command refuses while the gateway runs (it holds the port and the data dir)', async (t) => {
  const dataDir = t.testdir({})
  const gateway = await startGatewayProcess(dataDir, {}, ['--port', '0'])
  t.teardown(() => gateway.stop('SIGKILL'))
  const result = await runCli(['radio', 'probe', '--data-dir', dataDir])
  t.equal(result.code, 1)
  t.match(result.stderr, /the gateway is running and holds the radio: stop it first/)
  await gateway.stop()
})
