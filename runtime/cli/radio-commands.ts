// `gateway radio ...`: the radio from the host, through the control socket.
//   gateway radio channel         the channel, its preset letter, how many devices are paired
//   gateway radio channel N       choose the channel (a preset's) before the first pairing
// Moving a network that has devices relies on every device hearing the change broadcast;
// trackers asleep may not, and must then be paired again. So once devices are paired the
// command refuses unless --force (lib/radio/channel-move.ts; the zigbeePreset setting of the
// HTTP API keeps the same rule).
// Other radio subcommands (probe) join the table cli.ts builds with radioCli().
import { type SettingsService, zigbeePresets } from '../../lib/settings/service.ts'
import type { Radio } from '../../lib/radio/radio.ts'
import { channelMoveRefusal, pairedDevices } from '../../lib/radio/channel-move.ts'
import type { CliCommand } from './cli-command.ts'
import { sendControl, type ControlServer } from '../control/control.ts'
import { registerRadioUpkeepCommands } from './radio-upkeep-commands.ts'

export interface ChannelReport {
  channel: number
  preset: string
  /** The channel the radio reports now (it follows the preset within seconds). */
  radioChannel: number
  /** Devices paired in the network, or null when the radio cannot tell (it is down). */
  devices: number | null
  presets: Record<string, number>
  changed: boolean
}

export interface RadioChannelDeps {
  settings: SettingsService
  radio: Pick<Radio, 'kind' | 'info'>
}

const presetList = () =>
  Object.entries(zigbeePresets)
    .map(([letter, { channel }]) => `${channel} (${letter})`)
    .join(', ')

/** Shows the channel, or moves to `channel` (a preset's) when nothing is paired or `force`. */
export async function radioChannel(deps: RadioChannelDeps, args: { channel?: unknown; force?: unknown }): Promise<ChannelReport> {
  const info = await deps.radio.info()
  // The simulated restaurant has no network to strand.
  const devices = pairedDevices(deps.radio.kind, info)
  const report = (changed: boolean): ChannelReport => {
    const preset = deps.settings.get().zigbeePreset
    const presets = Object.fromEntries(Object.entries(zigbeePresets).map(([letter, { channel }]) => [letter, channel]))
    return { channel: presets[preset], preset, radioChannel: info.channel, devices, presets, changed }
  }
  if (args.channel === undefined) return report(false)
  const letter = Object.keys(zigbeePresets).find((key) => zigbeePresets[key].channel === args.channel)
  if (letter === undefined) throw new Error(`channel must be one of ${presetList()}`)
  if (deps.settings.get().zigbeePreset === letter) return report(false)
  const refusal = args.force === true ? undefined : channelMoveRefusal(deps.radio.kind, info)
  if (refusal) throw new Error(`${refusal}; add --force to ${devices === null ? 'change the channel' : 'move'} anyway`)
  await deps.settings.update({ zigbeePreset: letter })
  return report(true)
}

export function registerRadioCommands(control: ControlServer, deps: RadioChannelDeps & { radio: Radio }): void {
  control.register('radio.channel', (args) => radioChannel(deps, args))
  registerRadioUpkeepCommands(control, deps.radio)
}

export function describeChannel(report: ChannelReport): string {
  const devices = report.devices === null ? 'paired devices unknown (radio down)' : `${report.devices} device${report.devices === 1 ? '' : 's'} paired`
  const head = report.changed
    ? `channel set to ${report.channel} (preset ${report.preset}); the coordinator restarts on it`
    : `channel ${report.channel} (preset ${report.preset})${report.radioChannel !== report.channel ? `, radio on ${report.radioChannel}` : ''}`
  return `${head}; ${devices}; presets: ${presetList()}`
}

/** `gateway radio channel [N] [--force]`. */
export const radioChannelCommand: CliCommand = async (positionals, flags, dataDir) => {
  if (positionals.length > 1) throw new Error('usage: gateway radio channel [N] [--force]')
  const channel = positionals[0] === undefined ? undefined : /^\d+$/.test(positionals[0]) ? Number(positionals[0]) : positionals[0]
  return describeChannel((await sendControl(dataDir, 'radio.channel', { channel, force: flags.force === true })) as ChannelReport)
}

/** `gateway radio <subcommand> ...` over a fixed table of subcommands. */
export function radioCli(subcommands: ReadonlyMap<string, CliCommand>): CliCommand {
  return async (positionals, flags, dataDir) => {
    const [name, ...rest] = positionals
    const command = name === undefined ? undefined : subcommands.get(name)
    if (!command) throw new Error(`usage: gateway radio ${[...subcommands.keys()].join(' | ')} ...`)
    return command(rest, flags, dataDir)
  }
}

/** The radio command with this file's subcommands (cli.ts adds probe). */
export const radioCliCommand = radioCli(new Map([['channel', radioChannelCommand]]))
