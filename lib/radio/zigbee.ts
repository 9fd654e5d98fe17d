// The Zigbee radio: one zigbee-herdsman Controller (the only module, with its zigbee-*.ts
// helpers, that imports zigbee-herdsman). Paging is genIdentify identify with the lease as
// duration; locations, starts and clears arrive through the trkTracker cluster (see
// zigbee-profile.ts and docs/radio.md). When the adapter drops, the radio reports itself
// down, the HTTP API keeps serving, and it reconnects with backoff; paging that is still
// within its lease is sent again when it returns, and a 'status' {up: true} event lets the
// paging scheduler refresh its leases too.
import path from 'node:path'
import { Controller, setLogger } from 'zigbee-herdsman'
import type { Clock, TimerHandle } from '../clock.ts'
import type { Logger } from '../log.ts'
import { loadOrCreateCredentials, type NetworkCredentials } from './zigbee-network.ts'
import {
  addressToIeee,
  defaultManufacturerCode,
  ieeeToAddress,
  interpretMessage,
  trackerCluster,
  trackerClusterId,
  trackerClusterName,
} from './zigbee-profile.ts'
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
}

export const defaultReconnectDelaysMs = [1000, 2000, 5000, 10_000, 30_000, 60_000]
/** Just above the 7.68 s a parent holds a frame for a sleepy tracker. */
const defaultCommandTimeoutMs = 8000
/** A router's lastSeen is passed on at most this often (it changes on every frame). */
const repeaterSeenIntervalMs = 60_000
const unknownEui64 = '00:00:00:00:00:00:00:00'

type Device = ReturnType<Controller['getDevices']>[number]
type Listeners = { [K in keyof RadioEvents]?: Set<RadioListener<K>> }

export class ZigbeeRadio implements Radio {
  readonly kind = 'zigbee' as const
  readonly #options: ZigbeeRadioOptions
  readonly #clock: Clock
  readonly #log: Logger
  readonly #manufacturerCode: number
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
  /** Pages still within their lease, by address: re-sent when the adapter comes back. */
  readonly #leases = new Map<string, number>()
  readonly #repeaterSeenAt = new Map<string, number>()
  #unsubscribeChannel: (() => void) | undefined

  constructor(options: ZigbeeRadioOptions) {
    this.#options = options
    this.#clock = options.clock
    this.#log = options.log.child({ part: 'zigbee' })
    this.#manufacturerCode = options.manufacturerCode ?? defaultManufacturerCode
    this.#channel = options.channel.channel()
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
      acceptJoiningDeviceHandler: async () => true,
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
      for (const device of controller.getDevicesIterator()) this.#prepare(device)
      this.#attempt = 0
      this.#log.info({ result, eui64: this.#eui64, channel: this.#channel }, 'zigbee coordinator connected')
      this.#setUp(true)
      for (const device of controller.getDevicesIterator()) if (isRepeater(device)) this.#announceRepeater(device)
      await this.#reapplyLeases()
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
    controller.on('deviceJoined', ({ device }) => this.#prepare(device))
    controller.on('deviceInterview', ({ status, device }) => {
      if (status !== 'successful') return
      this.#prepare(device)
      if (isRepeater(device)) this.#announceRepeater(device)
    })
    controller.on('lastSeenChanged', ({ device }) => {
      if (!isRepeater(device)) return
      const last = this.#repeaterSeenAt.get(device.ieeeAddr) ?? -Infinity
      if (this.#clock.now() - last >= repeaterSeenIntervalMs) this.#announceRepeater(device)
    })
    controller.on('permitJoinChanged', ({ permitted }) => {
      if (!permitted) this.#permitJoinUntil = null
    })
    controller.on('message', (message) => {
      const events = interpretMessage(message, this.#clock.now(), isTracker(message.device))
      for (const { kind, event } of events) this.#emit(kind, event as never)
    })
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
    await this.#disconnect()
    this.#setUp(false, 'changing channel')
    await this.#connect()
  }

  /** Custom clusters and the no-queue rule are in memory only in herdsman: set them every time. */
  #prepare(device: Device): void {
    if (device.type === 'Coordinator') return
    if (!device.customClusters[trackerClusterName]) {
      device.addCustomCluster(trackerClusterName, trackerCluster(this.#manufacturerCode) as never)
    }
    // A queued stale page could otherwise reach a tracker after its cancel.
    if (isTracker(device)) device.pendingRequestTimeout = 0
  }

  #announceRepeater(device: Device): void {
    const now = this.#clock.now()
    this.#repeaterSeenAt.set(device.ieeeAddr, now)
    const endpoint = device.endpoints[0]
    this.#emit('repeaterJoined', {
      extendedAddress: ieeeToAddress(device.ieeeAddr),
      shortAddress: device.networkAddress,
      at: now,
      lastSeen: device.lastSeen ?? now,
      manufacturerId: device.manufacturerID ?? null,
      manufacturerName: device.manufacturerName ?? null,
      profileId: endpoint?.profileID ?? null,
      firmwareVersion: device.softwareBuildID ?? null,
      hardwareVersion: device.hardwareVersion ?? null,
      deviceType: device.type,
      deviceModel: device.modelID ?? null,
      linkQuality: device.linkquality ?? null,
    })
  }

  #device(address: string): Device {
    const controller = this.#controller
    if (!controller || !this.#up) throw new Error('zigbee radio is down')
    const device = controller.getDeviceByIeeeAddr(addressToIeee(address))
    if (!device) throw new Error(`no zigbee device ${address}`)
    return device
  }

  async #identify(address: string, seconds: number): Promise<void> {
    const device = this.#device(address)
    const endpoint = device.endpoints.find((e) => e.supportsInputCluster('genIdentify')) ?? device.endpoints[0]
    if (!endpoint) throw new Error(`zigbee device ${address} has no endpoint`)
    await endpoint.command('genIdentify', 'identify', { identifytime: seconds }, {
      sendPolicy: 'immediate',
      timeout: this.#options.commandTimeoutMs ?? defaultCommandTimeoutMs,
    })
  }

  async page(address: string, leaseSeconds: number): Promise<void> {
    if (!Number.isInteger(leaseSeconds) || leaseSeconds < 1 || leaseSeconds > 0xfffe) {
      throw new RangeError('leaseSeconds must be an integer from 1 to 65534')
    }
    // Remembered even when the send fails: the lease is re-sent when the adapter returns.
    this.#leases.set(address, this.#clock.now() + leaseSeconds * 1000)
    await this.#identify(address, leaseSeconds)
  }

  async cancel(address: string): Promise<void> {
    this.#leases.delete(address)
    await this.#identify(address, 0)
  }

  async #reapplyLeases(): Promise<void> {
    const now = this.#clock.now()
    for (const [address, until] of [...this.#leases]) {
      const remaining = Math.floor((until - now) / 1000)
      if (remaining < 1) {
        this.#leases.delete(address)
        continue
      }
      try {
        await this.#identify(address, remaining)
      } catch (error) {
        this.#log.warn({ err: error, address }, 're-sending a page after reconnection failed')
      }
    }
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
    const controller = this.#controller
    if (!controller || !this.#up) return
    const repeaters = [...controller.getDevicesIterator((device) => isRepeater(device))]
    await Promise.all(
      repeaters.map(async (device) => {
        try {
          await device.ping()
          this.#announceRepeater(device)
        } catch (error) {
          this.#log.debug({ err: error, ieee: device.ieeeAddr }, 'repeater did not answer a ping')
        }
      }),
    )
  }

  async info(): Promise<RadioInfo> {
    return {
      kind: 'zigbee',
      up: this.#up,
      eui64: this.#eui64,
      channel: this.#channel,
      panId: this.#credentials?.panId ?? 0,
      permitJoinUntil: this.#permitJoinUntil,
    }
  }
}

function hasTrackerCluster(device: Device): boolean {
  return device.endpoints.some((endpoint) => endpoint.inputClusters.includes(trackerClusterId))
}

/** Trackers are battery end devices. */
function isTracker(device: Device): boolean {
  return device.type === 'EndDevice'
}

/** Repeaters are routers; starter and clearing units (routers with trkTracker) are not. */
function isRepeater(device: Device): boolean {
  return device.type === 'Router' && !hasTrackerCluster(device)
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
