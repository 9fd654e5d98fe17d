// What happens to a Zigbee device once herdsman knows it (docs/radio.md):
// - on join: the tracker cluster and the no-queue rule are set on it (herdsman keeps both in
//   memory only, so also for every known device at every start);
// - after its interview (a failed interview is run again by herdsman when the device rejoins):
//   a device not of this profile is removed from the network (and refused if it tries to
//   join again during this run); one of ours is bound to the coordinator and its reporting
//   configured (zigbee-configure.ts), retried on its next frames while that fails;
// - when a known device joins again, it is configured again whatever herdsman's database
//   says: a device reset to factory settings rejoins with an empty binding table;
// - its messages become radio events (trkTracker frames only with our manufacturer code);
// - a device that leaves, or is removed, is reported (deviceLeft) so the inventories drop it;
// - repeaters are announced (on interview, on a ping answered, and at most once a minute
//   from their lastSeen); routers are pinged for availability (zigbee-availability.ts).
// The lifecycle shell (zigbee.ts) feeds it herdsman's events.
import type { Clock } from '../kernel/clock.ts'
import type { Logger } from '../kernel/log.ts'
import { ZigbeeAvailability, type UnavailableDevice } from './zigbee-availability.ts'
import { configureDevice, isConfigured } from './zigbee-configure.ts'
import { deviceRole, isRepeater, isTracker, type ZigbeeDevice } from './zigbee-device-kinds.ts'
import { ieeeToAddress, interpretMessage, isForeignTrackerFrame, trackerCluster, trackerClusterName, type ZigbeeMessage } from './zigbee-profile.ts'
import type { RadioEvents } from './radio.ts'

export type RadioEmit = <K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]) => void
type Endpoint = ZigbeeDevice['endpoints'][number]

/** The started network the devices live in. */
export interface ZigbeeNetwork {
  devices(): Iterable<ZigbeeDevice>
  /** The coordinator's endpoint 1, the target of every binding. */
  coordinator(): Endpoint | undefined
}

export interface ZigbeeDevicesOptions {
  clock: Clock
  log: Logger
  manufacturerCode: number
  emit: RadioEmit
  pingIntervalMs?: number
}

/** A router's lastSeen is passed on at most this often (it changes on every frame). */
const repeaterSeenIntervalMs = 60_000
/** A device whose configuration failed is tried again on a frame at most this often. */
const configureRetryMs = 10 * 60_000

export class ZigbeeDevices {
  readonly #clock: Clock
  readonly #log: Logger
  readonly #manufacturerCode: number
  readonly #emit: RadioEmit
  readonly #availability: ZigbeeAvailability
  readonly #repeaterSeenAt = new Map<string, number>()
  /** Devices removed for not being of this profile: refused if they try to join again. */
  readonly #refused = new Set<string>()
  readonly #configuring = new Set<string>()
  readonly #configureTriedAt = new Map<string, number>()
  #network: ZigbeeNetwork | undefined

  constructor(options: ZigbeeDevicesOptions) {
    this.#clock = options.clock
    this.#log = options.log
    this.#manufacturerCode = options.manufacturerCode
    this.#emit = options.emit
    this.#availability = new ZigbeeAvailability({
      clock: options.clock,
      log: options.log,
      pingIntervalMs: options.pingIntervalMs,
      answered: (device) => {
        if (isRepeater(device)) this.#announceRepeater(device)
      },
    })
  }

  /** A controller has started: every device of its database is prepared, pinging begins. */
  attach(network: ZigbeeNetwork): void {
    this.#network = network
    const coordinator = network.coordinator()
    for (const device of network.devices()) {
      this.joined(device)
      // Left unconfigured by an earlier run: configured when it next speaks.
      const role = deviceRole(device)
      if (role && coordinator && !isConfigured(device, role, coordinator)) this.#configureTriedAt.set(device.ieeeAddr, -Infinity)
    }
    this.#availability.start(() => network.devices())
  }

  detach(): void {
    this.#network = undefined
    this.#availability.stop()
  }

  /** After the radio reported itself up: the known repeaters are announced. */
  announceKnown(): void {
    for (const device of this.#network?.devices() ?? []) if (isRepeater(device)) this.#announceRepeater(device)
  }

  /** herdsman's acceptJoiningDeviceHandler. */
  mayJoin(ieeeAddr: string): boolean {
    const refused = this.#refused.has(ieeeAddr)
    if (refused) this.#log.warn({ address: ieeeToAddress(ieeeAddr) }, 'zigbee device not of this profile refused')
    return !refused
  }

  /** Custom clusters and the no-queue rule are in memory only in herdsman: set them every time. */
  joined(device: ZigbeeDevice): void {
    if (device.type === 'Coordinator') return
    if (!device.customClusters[trackerClusterName]) {
      device.addCustomCluster(trackerClusterName, trackerCluster(this.#manufacturerCode) as never)
    }
    // A queued stale page could otherwise reach a tracker after its cancel (herdsman sets a
    // queue timeout of its own during the interview of a genPollCtrl device).
    device.pendingRequestTimeout = 0
  }

  interview(status: 'started' | 'successful' | 'failed', device: ZigbeeDevice): void {
    const address = ieeeToAddress(device.ieeeAddr)
    if (status === 'started') return
    if (status === 'failed') {
      // herdsman interviews it again (from the start) the next time it joins.
      this.#log.warn({ address }, 'zigbee interview failed; the device is interviewed again when it rejoins')
      return
    }
    this.joined(device)
    const role = deviceRole(device)
    if (!role) return void this.#remove(device)
    this.#log.info({ address, role, model: device.modelID ?? null }, 'zigbee device joined')
    this.#configureTriedAt.delete(device.ieeeAddr)
    void this.#configure(device)
    if (role === 'repeater') this.#announceRepeater(device)
  }

  /**
   * A device herdsman had interviewed joined again (herdsman reports it as lastSeenChanged
   * with reason 'deviceJoined' and does not interview it again). After a factory reset its
   * binding table and reporting are gone while herdsman's database still lists them, so it
   * is configured again without asking that database, as zigbee2mqtt does on every join; a
   * device that joined again for another reason (a new parent, a lost key) is only sent
   * the same few frames again. Right after joining even a tracker is awake to take them.
   */
  rejoined(device: ZigbeeDevice): void {
    const role = deviceRole(device)
    // A repeater has nothing to configure; one not yet interviewed is configured after it.
    if ((role !== 'tracker' && role !== 'unit') || device.interviewState !== 'SUCCESSFUL') return
    this.#log.info({ address: ieeeToAddress(device.ieeeAddr) }, 'known zigbee device joined again; configuring it again')
    this.#configureTriedAt.delete(device.ieeeAddr)
    void this.#configure(device, { force: true })
  }

  /** herdsman's deviceLeave: it has already dropped the device from its database. */
  left(ieeeAddr: string): void {
    this.#log.info({ address: ieeeToAddress(ieeeAddr) }, 'zigbee device left the network')
    this.#forget(ieeeAddr)
  }

  lastSeenChanged(device: ZigbeeDevice): void {
    this.#availability.heard(device)
    if (!isRepeater(device)) return
    const last = this.#repeaterSeenAt.get(device.ieeeAddr) ?? -Infinity
    if (this.#clock.now() - last >= repeaterSeenIntervalMs) this.#announceRepeater(device)
  }

  message(message: ZigbeeMessage & { device: ZigbeeDevice }): void {
    const { device } = message
    if (isForeignTrackerFrame(message, this.#manufacturerCode)) {
      this.#log.debug(
        { address: ieeeToAddress(device.ieeeAddr), manufacturerCode: message.meta?.manufacturerCode ?? null },
        'frame on 0xFC00 with another manufacturer code ignored',
      )
    }
    const events = interpretMessage(message, this.#clock.now(), isTracker(device), this.#manufacturerCode)
    for (const { kind, event } of events) this.#emit(kind, event as never)
    // Awake now: the moment to finish a configuration that failed (a tracker asleep).
    const last = this.#configureTriedAt.get(device.ieeeAddr)
    if (last !== undefined && this.#clock.now() - last >= configureRetryMs) void this.#configure(device)
  }

  /** Pings every router; each repeater that answers is announced again with a fresh lastSeen. */
  async refreshRepeaters(): Promise<void> {
    if (this.#network) await this.#availability.ping(this.#network.devices())
  }

  /** Devices in herdsman's database, the coordinator aside. */
  paired(): number {
    let count = 0
    for (const device of this.#network?.devices() ?? []) if (device.type !== 'Coordinator') count++
    return count
  }

  unavailable(): UnavailableDevice[] {
    return this.#network ? this.#availability.unavailable(this.#network.devices()) : []
  }

  /** `force`: even when herdsman's database says it is configured (see rejoined). */
  async #configure(device: ZigbeeDevice, options: { force?: boolean } = {}): Promise<void> {
    const role = deviceRole(device)
    const coordinator = this.#network?.coordinator()
    if (!role || !coordinator || this.#configuring.has(device.ieeeAddr)) return
    if (!options.force && isConfigured(device, role, coordinator)) return void this.#configureTriedAt.delete(device.ieeeAddr)
    this.#configuring.add(device.ieeeAddr)
    this.#configureTriedAt.set(device.ieeeAddr, this.#clock.now())
    const address = ieeeToAddress(device.ieeeAddr)
    try {
      await configureDevice(device, role, coordinator, this.#manufacturerCode)
      this.#configureTriedAt.delete(device.ieeeAddr)
      this.#log.info({ address, role }, 'zigbee device bound to the coordinator and its reporting configured')
    } catch (error) {
      this.#log.warn({ err: error, address, role }, 'configuring a zigbee device failed; tried again when it next speaks')
    } finally {
      this.#configuring.delete(device.ieeeAddr)
    }
  }

  async #remove(device: ZigbeeDevice): Promise<void> {
    const address = ieeeToAddress(device.ieeeAddr)
    this.#refused.add(device.ieeeAddr)
    this.#log.warn({ address, type: device.type, model: device.modelID ?? null }, 'zigbee device not of this profile: removed from the network')
    try {
      await device.removeFromNetwork()
    } catch (error) {
      // Gone or asleep: forget it anyway; if it comes back it is refused at join.
      this.#log.debug({ err: error, address }, 'leave request not acknowledged')
      device.removeFromDatabase()
    }
    this.#forget(device.ieeeAddr)
  }

  #forget(ieeeAddr: string): void {
    this.#repeaterSeenAt.delete(ieeeAddr)
    this.#configureTriedAt.delete(ieeeAddr)
    this.#availability.forget(ieeeAddr)
    this.#emit('deviceLeft', { address: ieeeToAddress(ieeeAddr), at: this.#clock.now() })
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
