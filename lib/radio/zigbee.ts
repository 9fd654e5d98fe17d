// The Zigbee radio's lifecycle: one zigbee-herdsman Controller for the life of one radio
// process (this is the only module that loads zigbee-herdsman at runtime, through
// herdsman.ts; the others import its types only). It runs inside the radio child process (zigbee-child.ts), supervised by
// zigbee-process.ts: herdsman's module state and some adapters' leftovers (timers, queues,
// a serial port still locked after a failed start) only die with their process, so this
// class never rebuilds a Controller after a failure. A failed start throws; an adapter
// disconnect or a failed coordinator check calls onLost, and the host process ends.
// What happens to devices is in zigbee-devices.ts, paging in zigbee-paging.ts, the tracker
// profile in zigbee-profile.ts (see docs/radio.md).
import { existsSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { Controller, findAllDevices, setLogger, Zdo } from './herdsman.ts'
import type { Clock, TimerHandle } from '../kernel/clock.ts'
import { EventBus, type Listener, type Unsubscribe } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import { broadcastChannelChange } from './zigbee-channel.ts'
import { deviceDatabaseLost, loadOrCreateCredentials, zigbeeNetworkFormed, type NetworkCredentials } from './zigbee-network.ts'
import { describeTakeoverSupport, newNetworkFormed, planStart, readCoordinatorBackup, type StoredBackup } from './zigbee-takeover.ts'
import { type CoordinatorInfo, describeCoordinator, firmwareOf } from './coordinator.ts'
import type { InterviewResult, NetworkMap, RadioDevice, RadioUpkeep } from './upkeep.ts'
import { findDevice, interviewAgain, listDevices, networkMap as buildNetworkMap, removeDevice } from './zigbee-upkeep.ts'
import type { ZigbeeDevice } from './herdsman.ts'
import { ZigbeeDevices } from './zigbee-devices.ts'
import { ZigbeePager } from './zigbee-paging.ts'
import { addressToIeee, defaultManufacturerCode, ieeeToAddress } from './zigbee-profile.ts'
import { unknownEui64, type Radio, type RadioEvents, type RadioInfo } from './radio.ts'
import type { Candidate } from './zigbee-diagnosis.ts'
import { herdsmanLog } from './zigbee-herdsman-log.ts'

export type ZigbeeAdapterKind = 'zstack' | 'ember' | 'deconz' | 'zigate' | 'zboss' | 'ezsp' | 'zoh'

/** How to reach the coordinator (config `radio`): passed to herdsman's serialPort options. */
export interface ZigbeeSerialOptions {
  adapter?: ZigbeeAdapterKind
  /** /dev/ttyUSB0, /dev/serial/by-id/..., tcp://host:port, ...; omitted = USB auto-detection. */
  serialPort?: string
  baudRate?: number
  rtscts?: boolean
  /** Coordinator transmit power in dBm (adapters that support it). */
  transmitPower?: number
}

/** What a radio is set up with, the same in the gateway and in the radio process (JSON). */
export interface ZigbeeRadioSettings extends ZigbeeSerialOptions {
  /** Directory for the network credentials, herdsman's device database and coordinator backup. */
  dataDir: string
  manufacturerCode?: number
  /** How long a page or cancel waits for the tracker's acknowledgement. */
  commandTimeoutMs?: number
  /** The coordinator is asked for its endpoints this often (0: never) ... */
  checkIntervalMs?: number
  /** ... and must answer within this. */
  checkTimeoutMs?: number
  /** Repeaters and starter/clearing units not heard from for this long are pinged. */
  pingIntervalMs?: number
}

export interface ZigbeeRadioOptions extends ZigbeeRadioSettings {
  channel: number
  clock: Clock
  log: Logger
  /** The coordinator is gone (adapter disconnect, failed check): this radio is finished. */
  onLost?: (reason: string) => void
}

export const defaultCheckIntervalMs = 60_000
export const defaultCheckTimeoutMs = 10_000

export class ZigbeeRadio implements Radio, RadioUpkeep {
  readonly kind = 'zigbee' as const
  readonly #options: ZigbeeRadioOptions
  readonly #clock: Clock
  readonly #log: Logger
  readonly #events: EventBus<RadioEvents>
  #controller: Controller | undefined
  #credentials: NetworkCredentials | undefined
  #up = false
  /** Why the current controller is finished, once it is. */
  #lost: string | undefined
  #checkTimer: TimerHandle | undefined
  /** The coordinator's endpoints as first seen: a reset coordinator (Z-Stack) forgets them. */
  #coordinatorEndpoints: string | undefined
  #eui64 = unknownEui64
  #channel: number
  #permitJoinUntil: number | null = null
  #coordinator: CoordinatorInfo | undefined
  readonly #devices: ZigbeeDevices
  readonly #pager: ZigbeePager

  constructor(options: ZigbeeRadioOptions) {
    this.#options = options
    this.#clock = options.clock
    this.#log = options.log.child({ part: 'zigbee' })
    this.#events = new EventBus(this.#log)
    this.#channel = options.channel
    const emit = <K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]) => this.#events.emit(event, payload)
    this.#devices = new ZigbeeDevices({
      clock: this.#clock,
      log: this.#log,
      manufacturerCode: options.manufacturerCode ?? defaultManufacturerCode,
      emit,
      pingIntervalMs: options.pingIntervalMs,
    })
    this.#pager = new ZigbeePager({
      clock: this.#clock,
      log: this.#log,
      device: (address) => this.#device(address),
      commandTimeoutMs: options.commandTimeoutMs,
    })
  }

  get up(): boolean {
    return this.#up
  }

  on<K extends keyof RadioEvents>(event: K, listener: Listener<RadioEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  /**
   * Starts herdsman on the coordinator; throws when it cannot (the serial port may then stay
   * locked by the adapter: only ending the process frees it). Unusable stored credentials throw too.
   */
  async start(): Promise<void> {
    if (this.#controller) return
    if (deviceDatabaseLost(this.#directory())) {
      this.#log.warn(
        { dir: this.#directory() },
        'zigbee network.json exists but database.db is missing: every paired device must be paired again unless database.db is restored from a backup (docs/operations.md)',
      )
    }
    const formedBefore = zigbeeNetworkFormed(this.#directory())
    this.#credentials = loadOrCreateCredentials(this.#directory())
    this.#lost = undefined
    // A blank replacement stick takes the network over only on the backup's channel (zigbee-takeover.ts).
    const stored = readCoordinatorBackup(this.#directory())
    const plan = planStart(this.#options.adapter, this.#credentials, this.#options.channel, stored)
    if (plan.refusal) {
      this.#log.error({ adapter: this.#options.adapter ?? null }, `zigbee radio not started: ${plan.refusal}`)
      throw new Error(plan.refusal)
    }
    for (const warning of plan.warnings) this.#log.warn({ adapter: this.#options.adapter ?? null }, `zigbee ${warning}`)
    this.#channel = plan.channel
    const herdsman = herdsmanLog(this.#log)
    setLogger(herdsman.logger)
    const controller = this.#createController(this.#credentials)
    this.#controller = controller
    // Before start(): herdsman hands the adapter's events on while start() is still running,
    // so a disconnect there would otherwise be lost.
    this.#subscribe(controller)
    try {
      const result = await controller.start()
      if (this.#lost) throw new Error(this.#lost)
      const coordinator = controller.getDevicesByType('Coordinator')[0]
      if (coordinator) this.#eui64 = ieeeToAddress(coordinator.ieeeAddr)
      this.#channel = (await controller.getNetworkParameters()).channel
      this.#coordinatorEndpoints = await this.#askCoordinatorEndpoints(controller)
      this.#devices.attach({
        devices: () => controller.getDevicesIterator(),
        coordinator: () => controller.getDevicesByType('Coordinator')[0]?.getEndpoint(1),
      })
      this.#coordinator = await this.#describeCoordinator(controller, result)
      this.#log.info(
        {
          result,
          eui64: this.#eui64,
          channel: this.#channel,
          type: this.#coordinator.type,
          firmware: this.#coordinator.firmware,
          adapter: this.#coordinator.adapter,
          coordinator: describeCoordinator(this.#coordinator),
        },
        'zigbee coordinator connected',
      )
      this.#reportTakeover(result, formedBefore, stored)
      // Started on the backup's channel: now moved to the chosen one, as any channel change.
      if (this.#channel !== this.#options.channel && (await broadcastChannelChange(controller, this.#options.channel, this.#log))) {
        this.#channel = (await controller.getNetworkParameters()).channel
      }
    } catch (error) {
      this.#controller = undefined
      this.#devices.detach()
      await stopQuietly(controller)
      // Said plainly: some adapters (ember) report a missing or locked port only in a log line.
      const port = systemSerialPath(this.#options.serialPort)
      if (port?.startsWith('/') && !existsSync(port)) throw new Error(`no such port: ${this.#options.serialPort}`, { cause: error })
      const message = (error as Error).message
      const logged = herdsman.lastProblem()
      throw logged && !message.includes(logged) ? new Error(`${message} (${logged})`, { cause: error }) : error
    }
    this.#setUp(true)
    this.#devices.announceKnown()
    this.#armCheck(controller)
  }

  async stop(): Promise<void> {
    this.#clock.clearTimeout(this.#checkTimer)
    this.#checkTimer = undefined
    const controller = this.#controller
    this.#controller = undefined
    this.#devices.detach()
    if (controller) await stopQuietly(controller)
    if (this.#up) this.#setUp(false, 'stopped')
  }

  #directory(): string {
    return path.join(this.#options.dataDir, 'zigbee')
  }

  #createController(credentials: NetworkCredentials): Controller {
    const { adapter, serialPort, baudRate, rtscts, transmitPower } = this.#options
    const directory = this.#directory()
    return new Controller({
      network: {
        panID: credentials.panId,
        extendedPanID: credentials.extendedPanId,
        channelList: [this.#channel],
        networkKey: credentials.networkKey,
        networkKeyDistribute: false,
      },
      serialPort: { adapter, path: systemSerialPath(serialPort), baudRate, rtscts },
      databasePath: path.join(directory, 'database.db'),
      databaseBackupPath: path.join(directory, 'database.db.backup'),
      backupPath: path.join(directory, 'coordinator_backup.json'),
      adapter: { disableLED: false, transmitPower },
      acceptJoiningDeviceHandler: async (ieee) => this.#devices.mayJoin(ieee),
    })
  }

  #setUp(up: boolean, detail?: string): void {
    const changed = up !== this.#up
    this.#up = up
    if (!up) this.#permitJoinUntil = null
    if (changed) this.#events.emit('status', detail ? { up, detail } : { up })
  }

  #subscribe(controller: Controller): void {
    controller.on('adapterDisconnected', () => this.#lose(controller, 'adapter disconnected'))
    controller.on('deviceJoined', ({ device }) => this.#devices.joined(device))
    controller.on('deviceInterview', ({ status, device }) => this.#devices.interview(status, device))
    controller.on('deviceLeave', ({ ieeeAddr }) => this.#devices.left(ieeeAddr))
    controller.on('lastSeenChanged', ({ device, reason }) => {
      if (reason === 'deviceJoined') this.#devices.rejoined(device)
      this.#devices.lastSeenChanged(device)
    })
    controller.on('permitJoinChanged', ({ permitted }) => {
      if (!permitted) this.#permitJoinUntil = null
    })
    controller.on('message', (message) => this.#devices.message(message))
  }

  /** The controller is finished: reported once, then left to the host process to end. */
  #lose(controller: Controller, reason: string): void {
    if (this.#controller !== controller || this.#lost) return
    this.#lost = reason
    this.#clock.clearTimeout(this.#checkTimer)
    this.#checkTimer = undefined
    this.#log.warn({ reason }, 'zigbee coordinator lost')
    this.#setUp(false, reason)
    this.#options.onLost?.(reason)
  }

  /** A cheap request the coordinator itself must answer; it also notices a coordinator reset. */
  #armCheck(controller: Controller): void {
    const interval = this.#options.checkIntervalMs ?? defaultCheckIntervalMs
    if (interval <= 0) return
    this.#checkTimer = this.#clock.setTimeout(async () => {
      this.#checkTimer = undefined
      try {
        const endpoints = await this.#askCoordinatorEndpoints(controller)
        if (endpoints !== this.#coordinatorEndpoints) {
          throw new Error(`coordinator endpoints changed from [${this.#coordinatorEndpoints}] to [${endpoints}] (it was reset)`)
        }
      } catch (error) {
        this.#lose(controller, `coordinator check failed: ${(error as Error).message}`)
        return
      }
      if (this.#controller === controller && !this.#lost) this.#armCheck(controller)
    }, interval)
  }

  /** The coordinator's active endpoints (ZDO Active_EP_req to itself), bounded in time. */
  async #askCoordinatorEndpoints(controller: Controller): Promise<string> {
    const coordinator = controller.getDevicesByType('Coordinator')[0]
    const ask = controller.sendRaw({
      ieeeAddress: coordinator?.ieeeAddr ?? '0x0000000000000000',
      networkAddress: 0,
      profileId: Zdo.ZDO_PROFILE_ID,
      clusterKey: Zdo.ClusterId.ACTIVE_ENDPOINTS_REQUEST,
      zdoParams: [0],
    })
    const ms = this.#options.checkTimeoutMs ?? defaultCheckTimeoutMs
    const answer = await bounded(ask, ms, this.#clock, `the coordinator did not answer within ${ms} ms`)
    const response = answer as [number, { endpointList?: number[] } | undefined] | undefined
    if (!Array.isArray(response) || response[0] !== Zdo.Status.SUCCESS) {
      throw new Error(`the coordinator answered status ${Array.isArray(response) ? response[0] : 'none'}`)
    }
    return [...(response[1]?.endpointList ?? [])].sort((a, b) => a - b).join(',')
  }

  #device(address: string): ZigbeeDevice {
    const controller = this.#controller
    if (!controller || !this.#up) throw new Error('zigbee radio is down')
    const device = controller.getDeviceByIeeeAddr(addressToIeee(address))
    if (!device) throw new Error(`no zigbee device ${address}`)
    return device
  }

  page(address: string, leaseSeconds: number): Promise<void> {
    return this.#pager.page(address, leaseSeconds)
  }

  cancel(address: string): Promise<void> {
    return this.#pager.cancel(address)
  }

  /**
   * Tells the running network to move to `channel` (zigbee-channel.ts), before the gateway
   * restarts the radio process on it; false when it could not (herdsman's own broadcast at
   * start is then the fallback).
   */
  async announceChannel(channel: number): Promise<boolean> {
    const controller = this.#controller
    if (!controller || !this.#up) return false
    return broadcastChannelChange(controller, channel, this.#log)
  }

  /**
   * Saves herdsman's device database and writes a fresh coordinator backup
   * (coordinator_backup.json: network key, frame counters, child table) through herdsman's
   * own Controller.backup, for a gateway backup; false while the radio is down.
   */
  async backupCoordinator(): Promise<boolean> {
    const controller = this.#controller
    if (!controller || !this.#up) return false
    await controller.backup()
    return true
  }

  async permitJoin(seconds: number): Promise<void> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 254) throw new RangeError('seconds must be an integer from 0 to 254')
    const controller = this.#controller
    if (!controller || !this.#up) throw new Error('zigbee radio is down')
    await controller.permitJoin(seconds)
    this.#permitJoinUntil = seconds > 0 ? this.#clock.now() + seconds * 1000 : null
  }

  /** Every device herdsman knows and how its interview went (lib/radio/zigbee-upkeep.ts). */
  async devices(): Promise<RadioDevice[]> {
    return listDevices(this.#started())
  }

  /** Interviews a device again; a success is handled as after a join (configured, or removed when not ours). */
  async interview(address: string): Promise<InterviewResult> {
    const device = findDevice(this.#started(), address)
    return interviewAgain(device, this.#log, (status, interviewed) => this.#devices.interview(status, interviewed))
  }

  /** Tells a device to leave and forgets it (with `force`, also one that does not answer). */
  async remove(address: string, force: boolean): Promise<{ left: boolean }> {
    const device = findDevice(this.#started(), address)
    const result = await removeDevice(device, force, this.#log)
    this.#devices.left(device.ieeeAddr)
    return result
  }

  /** Each router's neighbours and link quality. */
  async networkMap(): Promise<NetworkMap> {
    return buildNetworkMap(this.#started(), this.#clock)
  }

  #started(): Controller {
    const controller = this.#controller
    if (!controller || !this.#up) throw new Error('zigbee radio is down')
    return controller
  }

  /** Pings every repeater; each that answers is announced again with a fresh lastSeen. */
  async refreshRepeaters(): Promise<void> {
    if (this.#controller && this.#up) await this.#devices.refreshRepeaters()
  }

  async info(): Promise<RadioInfo> {
    return {
      kind: 'zigbee',
      up: this.#up,
      eui64: this.#eui64,
      channel: this.#channel,
      panId: this.#credentials?.panId ?? 0,
      permitJoinUntil: this.#permitJoinUntil,
      devices: this.#up ? this.#devices.paired() : undefined,
      unavailable: this.#up ? this.#devices.unavailable() : [],
      ...(this.#coordinator ? { coordinator: this.#withBackupDate(this.#coordinator) } : {}),
    }
  }

  /** herdsman rewrites its backup every 24 h and at stop: the date is read when asked. */
  #withBackupDate(coordinator: CoordinatorInfo): CoordinatorInfo {
    const stored = readCoordinatorBackup(this.#directory())
    return { ...coordinator, backup: { ...coordinator.backup, at: stored.state === 'ok' ? stored.backup.at : null } }
  }

  /** The stick's type, firmware and backup, as herdsman reads them (lib/radio/coordinator.ts). */
  async #describeCoordinator(controller: Controller, result: string): Promise<CoordinatorInfo> {
    let type = 'unknown'
    let firmware: string | null = null
    try {
      const version = await controller.getCoordinatorVersion()
      type = version.type
      firmware = firmwareOf(version.meta as Record<string, unknown>)
    } catch (error) {
      this.#log.warn({ err: error }, 'the coordinator did not tell its firmware version')
    }
    // herdsman keeps its adapter private; supportsBackup() is what decides whether it writes coordinator_backup.json.
    const adapter = (controller as unknown as { adapter?: { supportsBackup(): Promise<boolean> } }).adapter
    const supported = adapter ? await adapter.supportsBackup().catch(() => null) : null
    const stored = readCoordinatorBackup(this.#directory())
    return {
      adapter: this.#options.adapter ?? null,
      type,
      firmware,
      eui64: this.#eui64,
      start: result === 'restored' || result === 'reset' ? result : 'resumed',
      backup: { supported, at: stored.state === 'ok' ? stored.backup.at : null, takeover: describeTakeoverSupport(this.#options.adapter) },
    }
  }

  /** A takeover by a replacement stick, or a new network where one was formed before, said plainly. */
  #reportTakeover(result: string, formedBefore: boolean, stored: StoredBackup): void {
    if (result === 'restored') {
      const previous = stored.state === 'ok' ? stored.backup.coordinatorEui64 : null
      this.#log.warn(
        { previous, eui64: this.#eui64 },
        `zigbee replacement coordinator took the network over from coordinator_backup.json without pairing again${previous && previous !== this.#eui64 ? ` (IEEE address ${previous} before, ${this.#eui64} now: devices are bound to it again as they next speak)` : ''}`,
      )
    } else if (result === 'reset' && formedBefore) {
      this.#log.error({ adapter: this.#options.adapter ?? null }, `zigbee ${newNetworkFormed(this.#options.adapter, stored, this.#credentials!)}`)
    }
  }
}

/**
 * herdsman applies a known stick's built-in serial options (baud rate, flow control) only
 * when the configured path is the system's device name (adapterDiscovery.js compares it
 * with the serial port list), so a /dev/serial/by-id/... link is resolved to its device
 * first, at every start (the link may point elsewhere after a replug). Paths that are not
 * links, or do not exist yet, are passed on as they are.
 */
export function systemSerialPath(configured: string | undefined): string | undefined {
  if (!configured?.startsWith('/')) return configured
  try {
    return realpathSync(configured)
  } catch {
    return configured
  }
}

/** Serial ports and network coordinators (mDNS, 2 s) as herdsman's discovery sees them. */
export async function listSticks(): Promise<Candidate[]> {
  // herdsman names a port "<pnpId> (<manufacturer>)", both undefined for ports without a USB identity.
  const named = (name: string) => name.replaceAll(' (undefined)', '').replace(/^undefined$/, 'serial port without USB identity')
  return (await findAllDevices()).map(({ name, path, adapter, baudRate, rtscts }) => ({ name: named(name), path, adapter, baudRate, rtscts }))
}

/** Waits for a promise at most ms on the given clock; what settles later is ignored. */
function bounded<T>(work: Promise<T>, ms: number, clock: Clock, message: string): Promise<T> {
  let timer: TimerHandle | undefined
  const expiry = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => reject(new Error(message)), ms)
  })
  work.catch(() => {})
  return Promise.race([work, expiry]).finally(() => clock.clearTimeout(timer))
}

async function stopQuietly(controller: Controller): Promise<void> {
  // After an adapter loss herdsman's stop() skips permitJoin(0), leaving its join timer (up
  // to 254 s, not unref'd) running on a dead controller: clear it so shutdown is prompt.
  clearTimeout((controller as unknown as { permitJoinTimer?: NodeJS.Timeout }).permitJoinTimer)
  try {
    await controller.stop()
  } catch {
    // A controller whose adapter never opened has nothing to stop.
  }
}
