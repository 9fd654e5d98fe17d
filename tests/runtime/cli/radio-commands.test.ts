// `gateway radio channel [N]`: the channel chosen before the first pairing, through the
// control socket of a real gateway; refused once devices are paired unless --force.
import t from 'tap'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { RadioInfo } from '../../../lib/radio/radio.ts'
import { SettingsService } from '../../../lib/settings/service.ts'
import { Store } from '../../../lib/store/db.ts'
import { startGateway } from '../../../runtime/wiring/main.ts'
import { describeChannel, radioChannel, radioCliCommand } from '../../../runtime/cli/radio-commands.ts'

async function deps(info: Partial<RadioInfo> = {}, kind: 'zigbee' | 'simulated' = 'zigbee') {
  const settings = await SettingsService.open(await new Store().collection('settings'))
  const radio = {
    kind,
    info: async (): Promise<RadioInfo> => ({
      kind,
      up: true,
      eui64: '00:12:4b:00:01:02:03:04',
      channel: 15,
      panId: 1,
      permitJoinUntil: null,
      devices: 0,
      ...info,
    }),
  }
  return { settings, radio }
}

t.test('shows the channel, its preset and the paired devices; the default is 15, not 11', async (t) => {
  const report = await radioChannel(await deps(), {})
  t.same(report, { channel: 15, preset: 'B', radioChannel: 15, devices: 0, presets: { A: 11, B: 15, C: 20, D: 25 }, changed: false })
  t.equal(describeChannel(report), 'channel 15 (preset B); 0 devices paired; presets: 11 (A), 15 (B), 20 (C), 25 (D)')
})

t.test('before the first pairing a preset channel is chosen; anything else is refused and changes nothing', async (t) => {
  const d = await deps()
  const report = await radioChannel(d, { channel: 20 })
  t.match(report, { channel: 20, preset: 'C', changed: true })
  t.equal(describeChannel(report), 'channel set to 20 (preset C); the coordinator restarts on it; 0 devices paired; presets: 11 (A), 15 (B), 20 (C), 25 (D)')
  t.equal(d.settings.get().zigbeePreset, 'C')
  t.match(await radioChannel(d, { channel: 20 }), { changed: false }, 'already there')
  for (const channel of [12, 26, '20', 'abc', 20.5]) {
    await t.rejects(radioChannel(d, { channel }), { message: 'channel must be one of 11 (A), 15 (B), 20 (C), 25 (D)' }, String(channel))
  }
  t.equal(d.settings.get().zigbeePreset, 'C')
})

t.test('once devices are paired, or when the radio cannot tell, the move needs --force', async (t) => {
  const paired = await deps({ devices: 3 })
  await t.rejects(radioChannel(paired, { channel: 25 }), {
    message: /^3 devices are paired on channel 15: trackers asleep may miss the move and need pairing again; add --force/,
  })
  t.equal(paired.settings.get().zigbeePreset, 'B', 'nothing changed')
  t.match(await radioChannel(paired, { channel: 25, force: true }), { channel: 25, preset: 'D', changed: true })

  const down = await deps({ up: false })
  await t.rejects(radioChannel(down, { channel: 25 }), { message: /the radio is down/ })
  t.equal(describeChannel(await radioChannel(down, {})), 'channel 15 (preset B); paired devices unknown (radio down); presets: 11 (A), 15 (B), 20 (C), 25 (D)')

  const simulated = await deps({ devices: undefined, channel: 15 }, 'simulated')
  t.match(await radioChannel(simulated, { channel: 11 }), { preset: 'A', changed: true, devices: 0 }, 'the simulated restaurant has nothing to strand')
})

t.test('gateway radio channel N through the control socket of a running gateway', async (t) => {
  const dataDir = t.testdir({})
  const config = parseConfig({ dataDir, port: 0, host: '127.0.0.1', mdns: { enabled: false } })
  const gateway = await startGateway({ config, log: memoryLogger('fatal').log })
  t.teardown(() => gateway.stop())
  t.match(await radioCliCommand(['channel'], {}, dataDir), /^channel 15 \(preset B\)/)
  t.match(await radioCliCommand(['channel', '25'], {}, dataDir), /^channel set to 25 \(preset D\)/)
  t.equal(gateway.services.settings.get().zigbeePreset, 'D')
  await t.rejects(radioCliCommand(['channel', 'x'], {}, dataDir), /channel must be one of/)
  await t.rejects(radioCliCommand(['channel', '1', '2'], {}, dataDir), /usage: gateway radio channel/)
  await t.rejects(radioCliCommand([], {}, dataDir), /usage: gateway radio channel/)
})
