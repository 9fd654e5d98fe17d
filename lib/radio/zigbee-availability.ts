// Availability of the always-listening devices (repeaters, starter and clearing units): each
// that has not been heard from for a ping interval is pinged (a genBasic read, as
// zigbee2mqtt does for its "active" devices); one that does not answer is unavailable until it
// is heard from again. Trackers sleep and are never pinged: they are judged by their last
// message against their reporting check-in (lib/api/present-tracker.ts).
import type { Clock, TimerHandle } from '../kernel/clock.ts'
import type { Logger } from '../kernel/log.ts'
import { deviceRole, isRouter, type ZigbeeDevice } from './zigbee-device-kinds.ts'
import { ieeeToAddress } from './zigbee-profile.ts'

export interface UnavailableDevice {
  address: string
  role: 'repeater' | 'unit'
  /** When it was last heard from (gateway clock), or null if not during this run. */
  lastHeard: number | null
}

export interface ZigbeeAvailabilityOptions {
  clock: Clock
  log: Logger
  /** A router not heard from for this long is pinged; also the period of the check. */
  pingIntervalMs?: number
  /** A router answered a ping. */
  answered(device: ZigbeeDevice): void
}

/** As zigbee2mqtt's default availability timeout for active devices. */
export const defaultPingIntervalMs = 10 * 60_000

export class ZigbeeAvailability {
  readonly #options: ZigbeeAvailabilityOptions
  readonly #heardAt = new Map<string, number>()
  readonly #unavailable = new Set<string>()
  #timer: TimerHandle | undefined
  #devices: (() => Iterable<ZigbeeDevice>) | undefined

  constructor(options: ZigbeeAvailabilityOptions) {
    this.#options = options
  }

  get #interval(): number {
    return this.#options.pingIntervalMs ?? defaultPingIntervalMs
  }

  /** Starts the periodic check over the devices of a started controller. */
  start(devices: () => Iterable<ZigbeeDevice>): void {
    this.stop()
    this.#devices = devices
    this.#arm()
  }

  stop(): void {
    this.#options.clock.clearTimeout(this.#timer)
    this.#timer = undefined
    this.#devices = undefined
  }

  #arm(): void {
    this.#timer = this.#options.clock.setTimeout(() => {
      const devices = this.#devices
      if (!devices) return
      void this.ping(devices(), { onlyQuiet: true }).finally(() => {
        if (this.#devices === devices) this.#arm()
      })
    }, this.#interval)
  }

  /** Any frame from a device. */
  heard(device: ZigbeeDevice): void {
    this.#heardAt.set(device.ieeeAddr, this.#options.clock.now())
    if (this.#unavailable.delete(device.ieeeAddr)) {
      this.#options.log.info({ address: ieeeToAddress(device.ieeeAddr), role: deviceRole(device) }, 'zigbee device available again')
    }
  }

  forget(ieeeAddr: string): void {
    this.#heardAt.delete(ieeeAddr)
    this.#unavailable.delete(ieeeAddr)
  }

  /** Pings routers (all of them, or only those not heard from for an interval). */
  async ping(devices: Iterable<ZigbeeDevice>, options: { onlyQuiet?: boolean } = {}): Promise<void> {
    const now = this.#options.clock.now()
    const due = [...devices].filter(
      (device) => isRouter(device) && (!options.onlyQuiet || now - (this.#heardAt.get(device.ieeeAddr) ?? -Infinity) >= this.#interval),
    )
    await Promise.all(due.map((device) => this.#ping(device)))
  }

  async #ping(device: ZigbeeDevice): Promise<void> {
    try {
      await device.ping()
      this.heard(device)
      this.#options.answered(device)
    } catch (error) {
      if (this.#unavailable.has(device.ieeeAddr)) return
      this.#unavailable.add(device.ieeeAddr)
      this.#options.log.warn(
        { err: error, address: ieeeToAddress(device.ieeeAddr), role: deviceRole(device) },
        'zigbee device did not answer a ping: unavailable',
      )
    }
  }

  /** The routers that did not answer their last ping and have not been heard from since. */
  unavailable(devices: Iterable<ZigbeeDevice>): UnavailableDevice[] {
    const list: UnavailableDevice[] = []
    for (const device of devices) {
      const role = deviceRole(device)
      if (!this.#unavailable.has(device.ieeeAddr) || (role !== 'repeater' && role !== 'unit')) continue
      list.push({ address: ieeeToAddress(device.ieeeAddr), role, lastHeard: this.#heardAt.get(device.ieeeAddr) ?? null })
    }
    return list
  }
}
