// The repeater inventory (GET|DELETE /api/v2/repeaters): every router the radio announced
// (repeaterJoined), kept in NeDB. A repeater is ACTIVE while the radio is up and it was
// heard from within the activity window; a refresh asks the radio to ping them all first.
import type { Clock } from '../kernel/clock.ts'
import type { Logger } from '../kernel/log.ts'
import type { RadioEvents } from '../radio/radio.ts'
import type { Collection } from '../store/db.ts'
import { formatLocal } from '../kernel/time.ts'
import { byCodeUnits } from '../kernel/text-order.ts'
import type { RepeaterRecord, RepeaterView } from './types.ts'
export type { RepeaterRecord, RepeaterView } from './types.ts'

/** The optional radio capability behind ?refresh=true (the Zigbee radio pings routers). */
export interface RepeaterProbe {
  refreshRepeaters?(): Promise<void>
}

export interface RepeaterDeps {
  collection: Collection<RepeaterRecord>
  clock: Clock
  log: Logger
  radioUp(): boolean
  timezone(): string
  activeWindowMs?: number
}

/** Routers speak up at least every few minutes while powered (link status, pings). */
export const defaultActiveWindowMs = 15 * 60_000

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value.slice(0, 64) : null)
const int = (value: unknown) => (Number.isInteger(value) ? (value as number) : null)

export class RepeaterInventory {
  readonly #deps: RepeaterDeps
  readonly #records = new Map<string, RepeaterRecord>()
  /** Records still being written, so a refresh lists what the radio just announced. */
  #writes: Promise<unknown> = Promise.resolve()

  private constructor(deps: RepeaterDeps, records: RepeaterRecord[]) {
    this.#deps = deps
    for (const record of records) this.#records.set(record.extendedAddress, record)
  }

  static async open(deps: RepeaterDeps): Promise<RepeaterInventory> {
    const docs = await deps.collection.find({})
    return new RepeaterInventory(
      deps,
      docs.map(({ _id, ...record }) => record as RepeaterRecord),
    )
  }

  /**
   * The clock was stepped (lib/orders/clock-mend.ts): moves when each repeater was first and
   * last seen, in memory at once, stored after the writes already queued.
   */
  shiftTimes(deltaMs: number): Promise<void> {
    const records = [...this.#records.values()]
    for (const record of records) {
      record.firstSeen += deltaMs
      record.lastSeen += deltaMs
    }
    const write = this.#writes.then(async () => {
      for (const { extendedAddress, firstSeen, lastSeen } of records) {
        await this.#deps.collection.update({ extendedAddress }, { $set: { firstSeen, lastSeen } })
      }
    })
    this.#writes = write.catch(() => undefined)
    return write
  }

  /** A repeaterJoined event: a new repeater, or fresh details and lastSeen for a known one. */
  record(event: RadioEvents['repeaterJoined']): Promise<void> {
    const write = this.#writes.then(() => this.#record(event))
    this.#writes = write.catch(() => undefined)
    return write
  }

  async #record(event: RadioEvents['repeaterJoined']): Promise<void> {
    const existing = this.#records.get(event.extendedAddress)
    const seenAt = int(event.lastSeen) ?? event.at
    const record: RepeaterRecord = {
      extendedAddress: event.extendedAddress,
      shortAddress: event.shortAddress,
      label: existing?.label ?? text(event.label) ?? `Repeater ${event.extendedAddress.slice(-5).replace(':', '').toUpperCase()}`,
      manufacturerId: int(event.manufacturerId) ?? existing?.manufacturerId ?? null,
      profileId: int(event.profileId) ?? existing?.profileId ?? null,
      parentShortAddress: int(event.parentShortAddress) ?? existing?.parentShortAddress ?? null,
      firmwareVersion: text(event.firmwareVersion) ?? existing?.firmwareVersion ?? null,
      hardwareVersion: int(event.hardwareVersion) ?? existing?.hardwareVersion ?? null,
      remainingChildren: int(event.remainingChildren) ?? existing?.remainingChildren ?? null,
      deviceType: text(event.deviceType) ?? existing?.deviceType ?? 'Router',
      deviceModel: text(event.deviceModel) ?? existing?.deviceModel ?? null,
      firstSeen: existing?.firstSeen ?? event.at,
      lastSeen: Math.max(existing?.lastSeen ?? 0, seenAt),
    }
    await this.#deps.collection.update({ extendedAddress: record.extendedAddress }, { ...record }, { upsert: true })
    this.#records.set(record.extendedAddress, record)
  }

  list(): RepeaterView[] {
    const now = this.#deps.clock.now()
    const window = this.#deps.activeWindowMs ?? defaultActiveWindowMs
    const up = this.#deps.radioUp()
    const zone = this.#deps.timezone()
    return [...this.#records.values()]
      .sort((a, b) => byCodeUnits(a.extendedAddress, b.extendedAddress))
      .map(({ firstSeen: _first, lastSeen, ...rest }) => ({
        ...rest,
        status: up && now - lastSeen <= window ? 'ACTIVE' : 'INACTIVE',
        lastSeen: formatLocal(lastSeen, zone),
      }))
  }

  /** Pings every repeater through the radio (where it can), then lists. */
  async refresh(radio: object): Promise<RepeaterView[]> {
    const probe = radio as RepeaterProbe
    if (typeof probe.refreshRepeaters === 'function') {
      try {
        await probe.refreshRepeaters()
      } catch (error) {
        this.#deps.log.warn({ err: error }, 'repeater refresh failed')
      }
    }
    await this.#writes
    return this.list()
  }

  /** A repeater left the Zigbee network (or was removed from it): it is no longer listed. */
  forget(address: string): Promise<void> {
    const write = this.#writes.then(async () => {
      if (!this.#records.has(address)) return
      await this.#deps.collection.remove({ extendedAddress: address })
      this.#records.delete(address)
    })
    this.#writes = write.catch(() => undefined)
    return write
  }

  /** Forgets every repeater; returns how many were removed. */
  async clear(): Promise<number> {
    const removed = await this.#deps.collection.remove({}, { multi: true })
    this.#records.clear()
    return removed
  }
}
