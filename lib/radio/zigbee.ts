// The Zigbee radio's lifecycle: one zigbee-herdsman Controller (this is the only module that
// loads zigbee-herdsman at runtime; the others import its types only). What happens to
// devices is in zigbee-devices.ts, paging in zigbee-paging.ts, the tracker profile in
// zigbee-profile.ts (see docs/radio.md). When the adapter drops, the radio reports itself
// down, the HTTP API keeps serving, and it reconnects with backoff; paging that is still
// within its lease is sent again when it returns, and a 'status' {up: true} event lets the
// paging scheduler refresh its leases too.
import path from 'node:path'
import { Controller, setLogger } from 'zigbee-herdsman'
import type { Clock, TimerHandle } from '../clock.ts'
import type { Logger } from '../log.ts'
import { broadcastChannelChange } from './zigbee-channel.ts'
import { deviceDatabaseLost, loadOrCreateCredentials, type NetworkCredentials } from './zigbee-network.ts'
import type { ZigbeeDevice } from './zigbee-device-kinds.ts'
import { ZigbeeDevices } from './zigbee-devices.ts'
import { ZigbeePager } from './zigbee-paging.ts'
import { addressToIeee, defaultManufacturerCode, ieeeToAddress } from './zigbee-profile.ts'
import type { Radio, RadioEvents, RadioInfo, RadioListener } from './radio.ts'

export type ZigbeeAdapterKind = 'zstack' | 'ember' | 'deconz' | 'zigate' | 'zboss' | 'ezsp' | 'zoh'

/** The part of the settings service the radio reads: the preset letter picks the channel. */
export interface ChannelSource {
  channel(): number
  onChange(listener: () => void): () => void
}

export interface ZigbeeRadioOptions {
  /** Directory for the network credentials, herdsman's device database and coordinator backup. */
  dataDir: string
  adapter?: ZigbeeAdapterKind
  /** /dev/ttyUSB0, tcp://host:port, ...; omitted = USB auto-detection. */
  serialPort?: string
  channel: ChannelSource
  clock: Clock
  log: Logger
  manufacturerCode?: number
  /** Delays between reconnection attempts in ms; the last repeats. */
  reconnectDelaysMs?: number[]
  /** How long a page or cancel waits for the tracker's acknowledgement. */
  commandTimeoutMs?: number
  /** Repeaters and starter/clearing units not heard from for this long are pinged. */
  pingIntervalMs?: number
}

export const defaultReconnectDelaysMs = [1000, 2000, 5000, 10_000, 30_000, 60_000]
const unknownEui64 = '00:00:00:00:00:00:00:00'

type Listeners = { [K in keyof RadioEvents]?: Set<RadioListener<K>> }

export class ZigbeeRadio implements Radio {
  readonly kind = 'zigbee' as const
  readonly #options: ZigbeeRadioOptions
  readonly #clock: Clock
  readonly #log: Logger
  readonly #listeners: Listeners = {}
  #controller: Controller | undefined
  #credentials: NetworkCredentials | undefined
  #up = false
  #running = false
  #connecting: Promise<void> | undefined
  #attempt = 0
  #retryTimer: TimerHandle | undefined
  #eui64 = unknownEui64
  #channel: number
  #permitJoinUntil: number | null = null
  readonly #devices: ZigbeeDevices
  readonly #pager: ZigbeePager
  #unsubscribeChannel: (() => void) | undefined

  constructor(options: ZigbeeRadioOptions) {
    this.#options = options
    this.#clock = options.clock
    this.#log = options.log.child({ part: 'zigbee' })
    this.#channel = options.channel.channel()
    const emit = <K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]) => this.#emit(event, payload)
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

  on<K extends keyof RadioEvents>(event: K, listener: RadioListener<K>): () => void {
    let set = this.#listeners[event] as Set<RadioListener<K>> | undefined
    if (!set) (this.#listeners as Record<string, unknown>)[event] = set = new Set()
    set.add(listener)
    return () => set.delete(listener)
  }

  #emit<K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]): void {
    for (const listener of (this.#listeners[event] ?? []) as Set<RadioListener<K>>) {
      try {
        listener(payload)
      } catch (error) {
        this.#log.error({ err: error, event }, 'radio listener failed')
      }
    }
  }

  /**
   * Connects to the coordinator. A missing or failing adapter does not fail the gateway:
   * the radio reports itself down and keeps retrying. Only unusable stored credentials throw.
   */
  async start(): Promise<void> {
    if (this.#running) return
    if (deviceDatabaseLost(this.#directory())) {
      this.#log.warn(
        { dir: this.#directory() },
        'zigbee network.json exists but database.db is missing: every paired device must be paired again unless database.db is restored from a backup (docs/operations.md)',
      )
    }
    this.#credentials = loadOrCreateCredentials(this.#directory())
    this.#running = true
    routeHerdsmanLogs(this.#log)
    this.#unsubscribeChannel = this.#options.channel.onChange(() => void this.#channelChanged())
    await this.#connect()
  }

  async stop(): Promise<void> {
    this.#running = false
    this.#unsubscribeChannel?.()
    this.#clock.clearTimeout(this.#retryTimer)
    this.#retryTimer = undefined
    await this.#connecting
    await this.#disconnect()
    if (this.#up) this.#setUp(false, 'stopped')
  }

  #directory(): string {
    return path.join(this.#options.dataDir, 'zigbee')
  }

  #connect(): Promise<void> {
    this.#connecting ??= this.#attemptConnect().finally(() => (this.#connecting = undefined))
    return this.#connecting
  }

  async #attemptConnect(): Promise<void> {
    const credentials = this.#credentials!
    const directory = this.#directory()
    this.#channel = this.#options.channel.channel()
    const controller = new Controller({
      network: {
        panID: credentials.panId,
        extendedPanID: credentials.extendedPanId,
        channelList: [this.#channel],
        networkKey: credentials.networkKey,
        networkKeyDistribute: false,
      },
      serialPort: { adapter: this.#options.adapter, path: this.#options.serialPort },
      databasePath: path.join(directory, 'database.db'),
      databaseBackupPath: path.join(directory, 'database.db.backup'),
      backupPath: path.join(directory, 'coordinator_backup.json'),
      adapter: { disableLED: false },
      acceptJoiningDeviceHandler: async (ieee) => this.#devices.mayJoin(ieee),
    })
    try {
      const result = await controller.start()
      if (!this.#running) {
        await controller.stop()
        return
      }
      this.#controller = controller
      this.#subscribe(controller)
      const coordinator = controller.getDevicesByType('Coordinator')[0]
      if (coordinator) this.#eui64 = ieeeToAddress(coordinator.ieeeAddr)
      this.#channel = (await controller.getNetworkParameters()).channel
      this.#devices.attach({
        devices: () => controller.getDevicesIterator(),
        coordinator: () => controller.getDevicesByType('Coordinator')[0]?.getEndpoint(1),
      })
      this.#attempt = 0
      this.#log.info({ result, eui64: this.#eui64, channel: this.#channel }, 'zigbee coordinator connected')
      this.#setUp(true)
      this.#devices.announceKnown()
      await this.#pager.reapplyLeases()
    } catch (error) {
      this.#log.warn({ err: error, attempt: this.#attempt + 1 }, 'zigbee coordinator not available')
      this.#controller = undefined
      await stopQuietly(controller)
      this.#setUp(false, `adapter unavailable: ${(error as Error).message}`)
      this.#scheduleReconnect()
    }
  }

  #scheduleReconnect(): void {
    if (!this.#running || this.#retryTimer) return
    const delays = this.#options.reconnectDelaysMs ?? defaultReconnectDelaysMs
    const delay = delays[Math.min(this.#attempt, delays.length - 1)]
    this.#attempt++
    this.#retryTimer = this.#clock.setTimeout(() => {
      this.#retryTimer = undefined
      if (this.#running) void this.#connect()
    }, delay)
  }

  async #disconnect(): Promise<void> {
    const controller = this.#controller
    this.#controller = undefined
    this.#devices.detach()
    if (controller) await stopQuietly(controller)
  }

  #setUp(up: boolean, detail?: string): void {
    const changed = up !== this.#up
    this.#up = up
    if (!up) this.#permitJoinUntil = null
    if (changed) this.#emit('status', detail ? { up, detail } : { up })
  }

  #subscribe(controller: Controller): void {
    controller.on('adapterDisconnected', () => void this.#adapterLost(controller))
    controller.on('deviceJoined', ({ device }) => this.#devices.joined(device))
    controller.on('deviceInterview', ({ status, device }) => this.#devices.interview(status, device))
    controller.on('deviceLeave', ({ ieeeAddr }) => this.#devices.left(ieeeAddr))
    controller.on('lastSeenChanged', ({ device }) => this.#devices.lastSeenChanged(device))
    controller.on('permitJoinChanged', ({ permitted }) => {
      if (!permitted) this.#permitJoinUntil = null
    })
    controller.on('message', (message) => this.#devices.message(message))
  }

  async #adapterLost(controller: Controller): Promise<void> {
    if (this.#controller !== controller) return
    this.#log.warn('zigbee adapter disconnected; reconnecting')
    await this.#disconnect()
    this.#setUp(false, 'adapter disconnected')
    this.#scheduleReconnect()
  }

  async #channelChanged(): Promise<void> {
    const wanted = this.#options.channel.channel()
    if (wanted === this.#channel || !this.#running) return
    this.#log.info({ from: this.#channel, to: wanted }, 'zigbee channel changed by the zigbeePreset setting; restarting')
    await this.#connecting
    this.#clock.clearTimeout(this.#retryTimer)
    this.#retryTimer = undefined
    this.#setUp(false, 'changing channel')
    // Told to the network first, while it still listens on the old channel (zigbee-channel.ts).
    if (this.#controller) await broadcastChannelChange(this.#controller, wanted, this.#log)
    await this.#disconnect()
    await this.#connect()
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

  async permitJoin(seconds: number): Promise<void> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 254) throw new RangeError('seconds must be an integer from 0 to 254')
    const controller = this.#controller
    if (!controller || !this.#up) throw new Error('zigbee radio is down')
    await controller.permitJoin(seconds)
    this.#permitJoinUntil = seconds > 0 ? this.#clock.now() + seconds * 1000 : null
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
    }
  }
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

/** Herdsman logs through a global hook; its chatter goes to debug, its problems to warn/error. */
function routeHerdsmanLogs(log: Logger): void {
  const child = log.child({ part: 'herdsman' })
  const text = (message: string | (() => string)) => (typeof message === 'function' ? message() : String(message))
  const quiet = (message: string | (() => string), namespace: string) => {
    // Lambdas are only worth evaluating when someone reads debug logs.
    if (child.isLevelEnabled('debug')) child.debug({ ns: namespace }, text(message))
  }
  setLogger({
    debug: quiet,
    info: quiet,
    warning: (message, namespace) => child.warn({ ns: namespace }, text(message)),
    error: (message, namespace) => child.error({ ns: namespace }, text(message)),
  })
}
