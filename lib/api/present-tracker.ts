// How GET /api/v2/trackers shows the tracker inventory: times in the gateway's timezone,
// the radio address as extendedAddress (the same name the repeaters use), and whether it is
// available (judged by lib/inventory/tracker-availability.ts).
import { isTrackerAvailable } from '../inventory/tracker-availability.ts'
import type { TrackerRecord } from '../inventory/trackers.ts'
import { formatLocal } from '../kernel/time.ts'
import type { TrackerView } from './wire-types.ts'

export type { TrackerView } from './wire-types.ts'

export function trackerView(record: TrackerRecord, zone: string, now: number): TrackerView {
  return {
    number: record.number,
    extendedAddress: record.address,
    battery: record.battery,
    linkQuality: record.linkQuality,
    captured: formatLocal(record.captured, zone),
    lastSeen: formatLocal(record.lastSeen, zone),
    available: isTrackerAvailable(record, now),
    order: record.order && { uuid: record.order.uuid, name: record.order.name },
  }
}
