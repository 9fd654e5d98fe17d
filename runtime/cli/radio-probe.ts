// `gateway radio probe`: for an installer at the box, with the gateway stopped. Lists the
// sticks herdsman's discovery finds, tries one start of the Zigbee radio in a radio process
// (as the gateway would: its own network credentials and channel, so a stick it already
// formed resumes and is never reset), and says in one line what is wrong.
import { SystemClock } from '../../lib/kernel/clock.ts'
import { loadConfig, type GatewayConfig } from '../../lib/config.ts'
import { createLogger } from '../../lib/kernel/log.ts'
import { type Candidate, describeCandidates, diagnoseStart } from '../../lib/radio/zigbee-diagnosis.ts'
import { fixedChannel, ZigbeeProcessRadio, type ZigbeeProcessOptions } from '../../lib/radio/zigbee-process.ts'
import type { ZigbeeAdapterKind } from '../../lib/radio/zigbee.ts'
import { channelOfPreset, SettingsService } from '../../lib/settings/service.ts'
import { Store } from '../../lib/store/db.ts'
import { sendControl } from '../control/control.ts'
import { defaultZigbeePreset } from '../wiring/zigbee-preset.ts'
import { giveToDataDirOwner } from './data-dir-owner.ts'
import { describeCoordinator } from '../../lib/radio/coordinator.ts'
import { describeTakeoverSupport } from '../../lib/radio/zigbee-takeover.ts'

export interface ProbeOptions {
  config: GatewayConfig
  /** Overrides of config.radio. */
  device?: string
  adapter?: ZigbeeAdapterKind
  baudRate?: number
  rtscts?: boolean
  /** How long the start may take. */
  timeoutMs: number
  /** herdsman's discovery (lib/radio/zigbee.ts listSticks); tests pass their own. */
  list(): Promise<Candidate[]>
  /** Further radio process options (tests: the fake coordinator). */
  process?: Partial<ZigbeeProcessOptions>
}

export interface ProbeResult {
  ok: boolean
  /** The sticks found, one a line. */
  candidates: string
  /** What was tried. */
  attempt: string
  /** One line: what is wrong, or what answered. */
  verdict: string
  /** What a replacement stick of this adapter type can do with the network (lib/radio/zigbee-takeover.ts). */
  replacement: string
}

/** The channel the gateway would start on (the zigbeePreset setting in its data dir). */
async function presetChannel(config: GatewayConfig): Promise<number> {
  const store = new Store({ dataDir: config.dataDir })
  try {
    // As the gateway opens them: a data dir whose network was formed on A keeps A.
    const settings = await SettingsService.open(await store.collection('settings'), { defaultPreset: defaultZigbeePreset(config.dataDir) })
    return channelOfPreset(settings.get().zigbeePreset)
  } finally {
    await store.close()
  }
}

export async function probeRadio(options: ProbeOptions): Promise<ProbeResult> {
  const { config } = options
  const found = await options.list()
  const candidates = describeCandidates(found)
  const path = options.device ?? config.radio.serialPort ?? found.find((candidate) => candidate.adapter)?.path
  if (!path)
    return {
      ok: false,
      candidates,
      attempt: 'nothing to try',
      verdict: 'no stick found: plug one in, or set radio.serialPort (and radio.adapter)',
      replacement: replacementLine(options.adapter ?? config.radio.adapter),
    }
  const adapter = options.adapter ?? config.radio.adapter ?? (found.find((candidate) => candidate.path === path)?.adapter as ZigbeeAdapterKind | undefined)
  const baudRate = options.baudRate ?? config.radio.baudRate
  const rtscts = options.rtscts ?? config.radio.rtscts
  const attempt = `trying ${adapter ?? 'auto-detected adapter'} on ${path}${baudRate ? ` at ${baudRate} baud` : ''} (up to ${Math.round(options.timeoutMs / 1000)} s)`
  const channel = await presetChannel(config)
  const radio = new ZigbeeProcessRadio({
    dataDir: config.dataDir,
    adapter,
    serialPort: path,
    baudRate,
    rtscts,
    transmitPower: config.radio.transmitPower,
    manufacturerCode: config.radio.manufacturerCode,
    channel: fixedChannel(channel),
    clock: new SystemClock(),
    // The probe says what is wrong in its own one line; the radio's log would only repeat it.
    log: createLogger({ level: 'silent' }),
    startTimeoutMs: options.timeoutMs,
    startWaitMs: options.timeoutMs + 5000,
    // One attempt: the probe stops the radio before any second one.
    restartDelaysMs: [3_600_000],
    ...options.process,
  })
  try {
    await radio.start()
    const info = await radio.info()
    const replacement = replacementLine(adapter)
    if (info.up) {
      const coordinator = info.coordinator ? describeCoordinator(info.coordinator) : `coordinator ${info.eui64}`
      const tookOver = info.coordinator?.start === 'restored' ? '; it took the network over from coordinator_backup.json' : ''
      return {
        ok: true,
        candidates,
        attempt,
        verdict: `ok: ${adapter ?? 'the adapter'} on ${path} answers: ${coordinator}, channel ${info.channel}${tookOver}`,
        replacement,
      }
    }
    const reason = info.supervision?.lastError ?? 'unknown'
    return { ok: false, candidates, attempt, verdict: diagnoseStart(reason, { path, adapter, baudRate }, found), replacement }
  } finally {
    await radio.stop()
    // Run with sudo, it wrote the settings and the network's files as root.
    giveToDataDirOwner(config.dataDir)
  }
}

function replacementLine(adapter: string | undefined): string {
  return `replacement stick: ${describeTakeoverSupport(adapter)}`
}

const probeUsage = 'usage: gateway radio probe [--device PATH] [--adapter TYPE] [--baud N] [--rtscts] [--timeout S]'

/** The CLI side: prints the list and the attempt, answers the verdict (an error when not ok). */
export async function probeCliCommand(positionals: string[], flags: Record<string, string | boolean | undefined>): Promise<string> {
  if (positionals.length > 0) throw new Error(probeUsage)
  const number = (name: string) => {
    const text = flags[name]
    if (text === undefined) return undefined
    if (typeof text !== 'string' || !/^\d+$/.test(text)) throw new Error(`--${name} takes a number; ${probeUsage}`)
    return Number(text)
  }
  const config = loadConfig({ configPath: flags.config as string | undefined, dataDir: flags['data-dir'] as string | undefined })
  // A running gateway holds the port (and its data dir): probing beside it would only say "busy".
  const running = await sendControl(config.dataDir, 'button.status', {}, 2000).then(
    () => true,
    () => false,
  )
  if (running) throw new Error('the gateway is running and holds the radio: stop it first (sudo systemctl stop tracker-gateway), then probe')
  const { listSticks } = await import('../../lib/radio/zigbee.ts')
  const result = await probeRadio({
    config,
    device: typeof flags.device === 'string' ? flags.device : undefined,
    adapter: adapterFlag(flags.adapter),
    baudRate: number('baud'),
    rtscts: flags.rtscts === true ? true : undefined,
    timeoutMs: (number('timeout') ?? 60) * 1000,
    list: listSticks,
  })
  console.log(`sticks found:\n${result.candidates}\n${result.attempt}\n${result.replacement}`)
  if (!result.ok) throw new Error(result.verdict)
  return result.verdict
}

const adapterKinds: ZigbeeAdapterKind[] = ['zstack', 'ember', 'deconz', 'zigate', 'zboss', 'ezsp', 'zoh']

function adapterFlag(value: string | boolean | undefined): ZigbeeAdapterKind | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !adapterKinds.includes(value as ZigbeeAdapterKind)) throw new Error(`--adapter must be one of ${adapterKinds.join(', ')}`)
  return value as ZigbeeAdapterKind
}

export const probeCliOptions = {
  device: { type: 'string' },
  adapter: { type: 'string' },
  baud: { type: 'string' },
  rtscts: { type: 'boolean' },
  timeout: { type: 'string' },
} as const
