// What happens to a Zigbee device once herdsman knows it: the tracker cluster and the
// no-queue rule are set on it (herdsman keeps both in memory only), its messages become radio
// events, and repeaters are announced (on interview, on a ping answered, and at most once a
// minute from their lastSeen). The lifecycle shell (zigbee.ts) feeds it herdsman's events.
import type { Clock } from '../clock.ts'
import type { Logger } from '../log.ts'
import { isRepeater, isTracker, type ZigbeeDevice } from './zigbee-device-kinds.ts'
import { ieeeToAddress, interpretMessage, trackerCluster, trackerClusterName, type ZigbeeMessage } from './zigbee-profile.ts'
import type { RadioEvents } from './radio.ts'

export type RadioEmit = <K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]) => void

export interface ZigbeeDevicesOptions {
  clock: Clock
  log: Logger
  manufacturerCode: number
  emit: RadioEmit
}

/** A router's lastSeen is passed on at most this often (it changes on every frame). */
const repeaterSeenIntervalMs = 60_000

export class ZigbeeDevices {
  readonly #clock: Clock
  readonly #log: Logger
  readonly #manufacturerCode: number
  readonly #emit: RadioEmit
  readonly #repeaterSeenAt = new Map<string, number>()

  constructor(options: ZigbeeDevicesOptions) {
    this.#clock = options.clock
    this.#log = options.log
    this.#manufacturerCode = options.manufacturerCode
    this.#emit = options.emit
  }

  /** Every device of herdsman's database, once a controller has started. */
  started(devices: Iterable<ZigbeeDevice>): void {
    for (const device of devices) this.joined(device)
  }

  /** After the radio reported itself up: the known repeaters are announced. */
  announceKnown(devices: Iterable<ZigbeeDevice>): void {
    for (const device of devices) if (isRepeater(device)) this.#announceRepeater(device)
  }

  /** Custom clusters and the no-queue rule are in memory only in herdsman: set them every time. */
  joined(device: ZigbeeDevice): void {
    if (device.type === 'Coordinator') return
    if (!device.customClusters[trackerClusterName]) {
      device.addCustomCluster(trackerClusterName, trackerCluster(this.#manufacturerCode) as never)
    }
    // A queued stale page could otherwise reach a tracker after its cancel.
    if (isTracker(device)) device.pendingRequestTimeout = 0
  }

  interviewed(device: ZigbeeDevice): void {
    this.joined(device)
    if (isRepeater(device)) this.#announceRepeater(device)
  }

  lastSeenChanged(device: ZigbeeDevice): void {
    if (!isRepeater(device)) return
    const last = this.#repeaterSeenAt.get(device.ieeeAddr) ?? -Infinity
    if (this.#clock.now() - last >= repeaterSeenIntervalMs) this.#announceRepeater(device)
  }

  message(message: ZigbeeMessage & { device: ZigbeeDevice }): void {
    const events = interpretMessage(message, this.#clock.now(), isTracker(message.device))
    for (const { kind, event } of events) this.#emit(kind, event as never)
  }

  /** Pings every repeater; each that answers is announced again with a fresh lastSeen. */
  async refreshRepeaters(devices: Iterable<ZigbeeDevice>): Promise<void> {
    const repeaters = [...devices].filter(isRepeater)
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

  #announceRepeater(device: ZigbeeDevice): void {
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
}
