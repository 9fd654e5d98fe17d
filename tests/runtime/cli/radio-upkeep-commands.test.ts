// `gateway radio devices | interview | remove | map` and the radio line of `gateway status`,
// through a real control socket, on a ZigbeeRadio over the fake coordinator (real herdsman
// Controller), and on the simulated restaurant.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { ControlServer } from '../../../runtime/control/control.ts'
import {
  describeDevices,
  describeInterview,
  describeRadioSummary,
  radioDevicesCommand,
  radioInterviewCommand,
  radioMapCommand,
  radioRemoveCommand,
  registerRadioUpkeepCommands,
} from '../../../runtime/cli/radio-upkeep-commands.ts'
import { SimulatedRadio } from '../../../lib/radio/simulated.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { coordinatorIeee } from '../../helpers/zigbee-fake-adapter.ts'
import { joinAndSettle, logged, repeater, setup, tracker } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'
import { ieeeToAddress } from '../../../lib/radio/zigbee-profile.ts'
import { sendControl } from '../../../runtime/control/control.ts'
import type { Radio } from '../../../lib/radio/radio.ts'

async function control(t: Test, radio: Radio): Promise<string> {
  // Its own directory: the radio's data dir is the test's testdir.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'radio-cli-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const server = new ControlServer(memoryLogger('fatal').log)
  registerRadioUpkeepCommands(server, radio)
  await server.listen(dataDir)
  t.teardown(() => server.close())
  return dataDir
}

const trackerAddress = ieeeToAddress(tracker.ieee)

t.test('devices, interview, remove and map from the command line', async (t) => {
  const context = await setup(t, { family: 'zstack', radio: { adapter: 'zstack' } })
  await context.radio.start()
  const adapter = context.fake.current!
  await joinAndSettle(context, adapter, repeater)
  adapter.interviewFailing.add(tracker.ieee)
  adapter.join(tracker)
  await until(() => logged(context.logs, tracker, 'zigbee interview failed; the device is interviewed again when it rejoins'), 'the failed interview')
  const dataDir = await control(t, context.radio)

  const listed = await radioDevicesCommand([], {}, dataDir)
  const lines = listed.split('\n')
  t.match(lines[0], new RegExp(`^${trackerAddress}  interview failed  Unknown  -  lqi`))
  t.match(lines[1], /^00:12:4b:00:11:22:33:44 {2}ok {2}repeater {2}REPEATER-2 {2}lqi /)
  t.equal(lines[2], '1 interview failed: wake the device and run "gateway radio interview <address>", or "gateway radio remove <address>"')

  t.match(
    await radioInterviewCommand([trackerAddress], {}, dataDir),
    new RegExp(`^interview of ${trackerAddress} failed: .* \\(is it awake\\? press its button, then try again\\)$`),
  )
  adapter.interviewFailing.delete(tracker.ieee)
  t.equal(await radioInterviewCommand([tracker.ieee], {}, dataDir), `${trackerAddress} interviewed: tracker, TRACKER-1`, 'the 0x form is read too')

  adapter.neighbours.set(0, [{ ieee: repeater.ieee, nwk: repeater.nwk, deviceType: 1, lqi: 99, relationship: 1, depth: 1 }])
  const map = JSON.parse(await radioMapCommand([], {}, dataDir))
  t.same(
    map.links.map((link: { from: string; to: string; linkQuality: number }) => [link.from, link.to, link.linkQuality]),
    [[ieeeToAddress(coordinatorIeee), ieeeToAddress(repeater.ieee), 99]],
  )

  adapter.unreachable.add(tracker.ieee)
  await t.rejects(radioRemoveCommand([trackerAddress], {}, dataDir), /did not acknowledge the leave request/)
  t.equal(
    await radioRemoveCommand([trackerAddress], { force: true }, dataDir),
    `${trackerAddress} did not answer; forgotten anyway (if it comes back it must be paired again)`,
  )
  t.equal(await radioRemoveCommand([ieeeToAddress(repeater.ieee)], {}, dataDir), '00:12:4b:00:11:22:33:44 left the network and is forgotten')
  t.equal(await radioDevicesCommand([], {}, dataDir), 'no devices paired')

  await t.rejects(
    radioRemoveCommand(['nonsense'], {}, dataDir),
    { message: 'nonsense is not an EUI-64 address (00:12:4b:00:01:02:03:04)' },
    'the API kind stays off the terminal',
  )
  await t.rejects(radioInterviewCommand(['00:12:4b:00:00:00:00:09'], {}, dataDir), { message: '00:12:4b:00:00:00:00:09' })
  await t.rejects(radioInterviewCommand([], {}, dataDir), /usage: gateway radio interview <ieee>/)
  await t.rejects(radioRemoveCommand(['a', 'b'], {}, dataDir), /usage: gateway radio remove <ieee> \[--force\]/)
  await t.rejects(radioDevicesCommand(['x'], {}, dataDir), /usage: gateway radio devices/)
  await t.rejects(radioMapCommand(['x'], {}, dataDir), /usage: gateway radio map/)

  const summary = describeRadioSummary((await sendControl(dataDir, 'radio.summary')) as never)
  t.equal(summary, 'radio: zigbee, up; coordinator zStack3x0 (adapter zstack), firmware fake-zstack-1.2.3, IEEE 00:12:4b:00:01:02:03:04')
})

t.test('the simulated restaurant: no Zigbee network to keep', async (t) => {
  const radio = new SimulatedRadio({ clock: new ManualClock(), trackers: 3, log: memoryLogger('fatal').log })
  const dataDir = await control(t, radio)
  await t.rejects(radioDevicesCommand([], {}, dataDir), { message: 'the simulated radio has no Zigbee network' })
  t.equal(
    describeRadioSummary((await sendControl(dataDir, 'radio.summary')) as never),
    'radio: simulated (no Zigbee stick is used: set "radio" in the config, docs/operations.md "Configure")',
  )
})

t.test('the words', async (t) => {
  t.equal(
    describeRadioSummary({ kind: 'zigbee', up: false, coordinator: null, lastError: 'no such port: /dev/ttyUSB0' }),
    'radio: zigbee, down: no such port: /dev/ttyUSB0',
  )
  t.equal(describeRadioSummary({ kind: 'zigbee', up: false, coordinator: null, lastError: null }), 'radio: zigbee, down')
  const device = {
    address: '00:12:4b:00:00:00:00:01',
    networkAddress: 1,
    type: 'Router' as const,
    role: null,
    model: null,
    manufacturer: null,
    interview: 'pending' as const,
    lastSeen: 0,
    linkQuality: null,
  }
  t.equal(describeDevices([device], 3 * 3600_000), '00:12:4b:00:00:00:00:01  interview pending  Router  -  lqi -  seen 3 h ago')
  t.equal(describeDevices([{ ...device, lastSeen: null }], 0), '00:12:4b:00:00:00:00:01  interview pending  Router  -  lqi -  seen never')
  t.equal(describeDevices([{ ...device, lastSeen: 0 }], 10_000), '00:12:4b:00:00:00:00:01  interview pending  Router  -  lqi -  seen just now')
  t.equal(describeDevices([{ ...device, lastSeen: 0 }], 5 * 60_000), '00:12:4b:00:00:00:00:01  interview pending  Router  -  lqi -  seen 5 min ago')
  t.equal(
    describeInterview({ device: { ...device, interview: 'successful' }, error: null }),
    '00:12:4b:00:00:00:00:01 interviewed: not of this profile (removed from the network)',
  )
})
