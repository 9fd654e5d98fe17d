// How GET /api/v2/trackers shows the tracker inventory: times in the gateway's timezone,
// the radio address as extendedAddress (the same name the repeaters use).
import type { TrackerRecord } from '../inventory/trackers.ts'
import { formatLocal } from '../time.ts'

export interface TrackerView {
  number: number
  extendedAddress: string
  battery: number | null
  linkQuality: number | null
  captured: string
  lastSeen: string
  order: { uuid: string; name: number } | null
}

export function trackerView(record: TrackerRecord, zone: string): TrackerView {
  return {
    number: record.number,
    extendedAddress: record.address,
    battery: record.battery,
    linkQuality: record.linkQuality,
    captured: formatLocal(record.captured, zone),
    lastSeen: formatLocal(record.lastSeen, zone),
    order: record.order && { uuid: record.order.uuid, name: record.order.name },
  }
}
