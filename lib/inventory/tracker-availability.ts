// Whether a tracker is available. Trackers sleep and are never pinged: one is judged by its
// last message against its reporting check-in, the interval the radio configures on every
// tracker (lib/radio/zigbee-configure.ts). Judged here, beside the inventory's records, so
// that what presents them (lib/api) needs nothing from the radio.
import { trackerCheckInMs } from '../radio/zigbee-configure.ts'
import type { TrackerRecord } from './trackers.ts'

/** A tracker silent for three check-ins is unavailable (one lost report is not enough). */
export const trackerSilentAfterMs = 3 * trackerCheckInMs

export function isTrackerAvailable(record: Pick<TrackerRecord, 'lastSeen'>, now: number): boolean {
  return now - record.lastSeen <= trackerSilentAfterMs
}
