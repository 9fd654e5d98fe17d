// The trackers the gateway knows: captured the first time each is held over a starter unit
// (its number and radio address), refreshed by every sign of life. v1 needs this to create
// an order (docs/api.md, "Active orders"); GET/DELETE /api/v2/trackers serve it. Kept in memory for fast
// reads, persisted in NeDB before any change is acknowledged.
import type { Collection, Durability } from '../store/db.ts'
import { byCodeUnits } from '../kernel/text-order.ts'
import type { TrackerBinding, TrackerRecord } from './types.ts'
export type { TrackerBinding, TrackerRecord } from './types.ts'

export interface TrackerSighting {
  address: string
  number?: number
  battery?: number
  linkQuality?: number
  at: number
}

export class TrackerInventory {
  readonly #collection: Collection<TrackerRecord>
  readonly #byAddress = new Map<string, TrackerRecord>()

  private constructor(collection: Collection<TrackerRecord>, records: TrackerRecord[]) {
    this.#collection = collection
    for (const record of records) this.#byAddress.set(record.address, record)
  }

  static async open(collection: Collection<TrackerRecord>): Promise<TrackerInventory> {
    const docs = await collection.find({})
    return new TrackerInventory(
      collection,
      docs.map(({ _id, ...record }) => record),
    )
  }

  list(): TrackerRecord[] {
    return [...this.#byAddress.values()].sort((a, b) => a.number - b.number || byCodeUnits(a.address, b.address)).map(copy)
  }

  byNumber(number: number): TrackerRecord | undefined {
    const record = [...this.#byAddress.values()].find((r) => r.number === number)
    return record && copy(record)
  }

  byAddress(address: string): TrackerRecord | undefined {
    const record = this.#byAddress.get(address)
    return record && copy(record)
  }

  /**
   * A tracker held over a starter unit: its address is captured with its number. A number
   * belongs to one physical tracker, so a replacement tracker with the same number takes
   * over the old record (the old address is forgotten).
   */
  async captured(sighting: { address: string; number: number; at: number }, durability: Durability = 'now'): Promise<TrackerRecord> {
    for (const other of [...this.#byAddress.values()]) {
      if (other.number === sighting.number && other.address !== sighting.address) await this.#remove(other.address, durability)
    }
    const existing = this.#byAddress.get(sighting.address)
    const record: TrackerRecord = existing
      ? { ...existing, number: sighting.number, lastSeen: sighting.at }
      : { number: sighting.number, address: sighting.address, captured: sighting.at, lastSeen: sighting.at, battery: null, linkQuality: null, order: null }
    await this.#save(record, durability)
    return copy(record)
  }

  /** Any sign of life from a known tracker; unknown addresses are ignored (not yet captured). */
  async seen(sighting: TrackerSighting, durability: Durability = 'now'): Promise<TrackerRecord | undefined> {
    const existing = this.#byAddress.get(sighting.address)
    if (!existing) return undefined
    const record: TrackerRecord = {
      ...existing,
      lastSeen: Math.max(existing.lastSeen, sighting.at),
      battery: sighting.battery ?? existing.battery,
      linkQuality: sighting.linkQuality ?? existing.linkQuality,
    }
    await this.#save(record, durability)
    return copy(record)
  }

  /**
   * The tracker left the radio network (or was removed from it): forgotten, unless an active
   * order still holds it (the order keeps its tracker; it is forgotten when cleared). Returns
   * whether it was forgotten.
   */
  async left(address: string, durability: Durability = 'now'): Promise<boolean> {
    const existing = this.#byAddress.get(address)
    if (!existing || existing.order !== null) return false
    await this.#remove(address, durability)
    return true
  }

  /** Records which active order holds the tracker (null: none). Unknown addresses are ignored. */
  async bind(address: string, order: TrackerBinding | null, durability: Durability = 'now'): Promise<void> {
    const existing = this.#byAddress.get(address)
    if (!existing) return
    if (existing.order?.uuid === order?.uuid && existing.order?.name === order?.name) return
    await this.#save({ ...existing, order: order && { uuid: order.uuid, name: order.name } }, durability)
  }

  /** Makes every binding match the active orders (after a restart or a crash between writes). */
  async reconcile(active: { uuid: string; name: number; tracker: string | null }[]): Promise<void> {
    const holders = new Map(active.filter((o) => o.tracker !== null).map((o) => [o.tracker as string, o]))
    for (const record of [...this.#byAddress.values()]) {
      const holder = holders.get(record.address)
      await this.bind(record.address, holder ? { uuid: holder.uuid, name: holder.name } : null)
    }
  }

  /** Forgets every tracker not bound to an active order; returns how many were removed. */
  async clearUnbound(): Promise<number> {
    let removed = 0
    for (const record of [...this.#byAddress.values()]) {
      if (record.order !== null) continue
      await this.#remove(record.address)
      removed++
    }
    return removed
  }

  /**
   * The clock was stepped (lib/orders/clock-mend.ts): moves when each tracker was captured
   * and last seen, in memory at once and then stored, so availability is judged right.
   */
  async shiftTimes(deltaMs: number, durability: Durability = 'now'): Promise<void> {
    const records = [...this.#byAddress.values()]
    for (const record of records) {
      record.captured += deltaMs
      record.lastSeen += deltaMs
    }
    for (const { address, captured, lastSeen } of records) {
      await this.#collection.update({ address }, { $set: { captured, lastSeen } }, { durability })
    }
  }

  async #save(record: TrackerRecord, durability: Durability): Promise<void> {
    await this.#collection.update({ address: record.address }, { ...record }, { upsert: true, durability })
    this.#byAddress.set(record.address, record)
  }

  async #remove(address: string, durability: Durability = 'now'): Promise<void> {
    await this.#collection.remove({ address }, { durability })
    this.#byAddress.delete(address)
  }
}

function copy(record: TrackerRecord): TrackerRecord {
  return { ...record, order: record.order && { ...record.order } }
}
