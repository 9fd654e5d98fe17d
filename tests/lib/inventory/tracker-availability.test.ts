import t from 'tap'
import { isTrackerAvailable, trackerSilentAfterMs } from '../../../lib/inventory/tracker-availability.ts'
import { reportingIntervals } from '../../../lib/radio/zigbee-configure.ts'

t.test('a tracker is available until it has missed three check-ins of the interval the radio configures', async (t) => {
  t.equal(trackerSilentAfterMs, 3 * reportingIntervals.tableId.maximumReportInterval * 1000, 'three hourly check-ins')
  const lastSeen = Date.parse('2026-11-22T12:00:00Z')
  t.equal(isTrackerAvailable({ lastSeen }, lastSeen), true)
  t.equal(isTrackerAvailable({ lastSeen }, lastSeen + trackerSilentAfterMs), true, 'one report lost, then another: still available')
  t.equal(isTrackerAvailable({ lastSeen }, lastSeen + trackerSilentAfterMs + 1), false, 'silent for three check-ins')
})
