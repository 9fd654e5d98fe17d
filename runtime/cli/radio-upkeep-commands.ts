// Radio upkeep from the host, through the control socket (docs/radio.md "Upkeep"):
//   gateway radio devices                   every device, failed interviews first
//   gateway radio interview <ieee>          interview one again (it must be awake)
//   gateway radio remove <ieee> [--force]   tell it to leave and forget it (--force: also when it does not answer)
//   gateway radio map                       each router's neighbours and link quality, as JSON
// and the coordinator line of `gateway status`.
import { DomainError } from '../../lib/kernel/errors.ts'
import { describeCoordinator, type CoordinatorInfo } from '../../lib/radio/coordinator.ts'
import type { Radio } from '../../lib/radio/radio.ts'
import type { InterviewResult, RadioDevice } from '../../lib/radio/upkeep.ts'
import { RadioUpkeepService } from '../../lib/radio/upkeep.ts'
import { sendControl, type ControlServer } from '../control/control.ts'
import type { CliCommand } from './cli-command.ts'

/** The radio line of `gateway status`, from the control socket. */
export interface RadioSummary {
  kind: Radio['kind']
  up: boolean
  coordinator: CoordinatorInfo | null
  lastError: string | null
}

/** Interviews and neighbour tables talk to devices: longer than the control socket's usual wait. */
const upkeepWaitMs = 130_000

/** Domain errors read as their detail at the terminal (the kind is for the API). */
async function plainly<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof DomainError) throw new Error(error.detail ?? error.kind)
    throw error
  }
}

export function registerRadioUpkeepCommands(control: ControlServer, radio: Radio): void {
  const upkeep = new RadioUpkeepService(radio)
  control.register('radio.devices', () => plainly(() => upkeep.devices()))
  control.register('radio.interview', (args) => plainly(() => upkeep.interview(String(args.address ?? ''))))
  control.register('radio.remove', (args) => plainly(() => upkeep.remove(String(args.address ?? ''), args.force === true)))
  control.register('radio.map', () => plainly(() => upkeep.networkMap()))
  control.register('radio.summary', async (): Promise<RadioSummary> => {
    const info = await radio.info()
    return { kind: radio.kind, up: info.up, coordinator: info.coordinator ?? null, lastError: info.supervision?.lastError ?? null }
  })
}

const ago = (at: number | null, now: number) => {
  if (at === null) return 'never'
  const minutes = Math.round((now - at) / 60_000)
  return minutes < 1 ? 'just now' : minutes < 120 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`
}

export function describeDevices(devices: RadioDevice[], now: number): string {
  if (devices.length === 0) return 'no devices paired'
  const failed = devices.filter((device) => device.interview === 'failed').length
  const lines = devices.map((device) =>
    [
      device.address,
      device.interview === 'successful' ? 'ok' : `interview ${device.interview}`,
      device.role ?? device.type,
      device.model ?? '-',
      `lqi ${device.linkQuality ?? '-'}`,
      `seen ${ago(device.lastSeen, now)}`,
    ].join('  '),
  )
  const advice = failed
    ? [`${failed} interview${failed === 1 ? '' : 's'} failed: wake the device and run "gateway radio interview <address>", or "gateway radio remove <address>"`]
    : []
  return [...lines, ...advice].join('\n')
}

export function describeInterview(result: InterviewResult): string {
  const { device, error } = result
  if (error) return `interview of ${device.address} failed: ${error} (is it awake? press its button, then try again)`
  return `${device.address} interviewed: ${device.role ?? 'not of this profile (removed from the network)'}${device.model ? `, ${device.model}` : ''}`
}

export function describeRadioSummary(summary: RadioSummary): string {
  // A fresh install runs the simulated restaurant: with a stick plugged in, nothing else says the stick is unused.
  if (summary.kind === 'simulated') return 'radio: simulated (no Zigbee stick is used: set "radio" in the config, docs/operations.md "Configure")'
  const state = summary.up ? 'up' : `down${summary.lastError ? `: ${summary.lastError}` : ''}`
  return `radio: zigbee, ${state}${summary.coordinator ? `; coordinator ${describeCoordinator(summary.coordinator)}` : ''}`
}

const oneAddress = (positionals: string[], usage: string) => {
  if (positionals.length !== 1) throw new Error(usage)
  return positionals[0]
}

export const radioDevicesCommand: CliCommand = async (positionals, _flags, dataDir) => {
  if (positionals.length > 0) throw new Error('usage: gateway radio devices')
  return describeDevices((await sendControl(dataDir, 'radio.devices', {}, upkeepWaitMs)) as RadioDevice[], Date.now())
}

export const radioInterviewCommand: CliCommand = async (positionals, _flags, dataDir) => {
  const address = oneAddress(positionals, 'usage: gateway radio interview <ieee>')
  return describeInterview((await sendControl(dataDir, 'radio.interview', { address }, upkeepWaitMs)) as InterviewResult)
}

export const radioRemoveCommand: CliCommand = async (positionals, flags, dataDir) => {
  const address = oneAddress(positionals, 'usage: gateway radio remove <ieee> [--force]')
  const { left } = (await sendControl(dataDir, 'radio.remove', { address, force: flags.force === true }, upkeepWaitMs)) as { left: boolean }
  return left ? `${address} left the network and is forgotten` : `${address} did not answer; forgotten anyway (if it comes back it must be paired again)`
}

export const radioMapCommand: CliCommand = async (positionals, _flags, dataDir) => {
  if (positionals.length > 0) throw new Error('usage: gateway radio map')
  return JSON.stringify(await sendControl(dataDir, 'radio.map', {}, upkeepWaitMs), null, 2)
}

/** The subcommands this file adds to `gateway radio` (cli.ts). */
export const radioUpkeepSubcommands: [string, CliCommand][] = [
  ['devices', radioDevicesCommand],
  ['interview', radioInterviewCommand],
  ['remove', radioRemoveCommand],
  ['map', radioMapCommand],
]
