// How GET /api/v2/trackers shows the tracker inventory: times in the gateway's timezone,
// the radio address as extendedAddress (the same name the repeaters use), and whether it is
// available. Trackers sleep and are never pinged: one is judged by its last message against
// its hourly reporting check-in (lib/radio/zigbee-configure.ts).
import type { TrackerRecord } from '../inventory/trackers.ts'
import { trackerCheckInMs } from '../radio/zigbee-configure.ts'
import { formatLocal } from '../kernel/time.ts'

/** A tracker silent for three check-ins is unavailable (one lost report is not enough). */
export const trackerSilentAfterMs = 3 * trackerCheckInMs

export interface TrackerView {
  number: number
  extendedAddress: string
  battery: number | null
  linkQuality: number | null
  captured: string
  lastSeen: string
  available: boolean
  order: { uuid: string; name: number } | null
}

export function trackerView(record: TrackerRecord, zone: string, now: number): TrackerView {
  return {
    number: record.number,
    extendedAddress: record.address,
    battery: record.battery,
    linkQuality: record.linkQuality,
    captured: formatLocal(record.captured, zone),
    lastSeen: formatLocal(record.lastSeen, zone),
    available: now - record.lastSeen <= trackerSilentAfterMs,
    order: record.order && { uuid: record.order.uuid, name: record.order.name },
  }
}
