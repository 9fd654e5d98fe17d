// What the gateway sets up on a device after its interview, so reports reach the coordinator
// whatever the firmware hard-codes: standard stacks send attribute reports (and commands sent
// "to bound destinations") only to the entries of their binding table. As zigbee2mqtt does
// after an interview: bind the clusters to the coordinator, then configure reporting. herdsman
// keeps both in its database, so a device that is configured stays so across restarts.
import type { DeviceRole, ZigbeeDevice } from './zigbee-device-kinds.ts'
import { powerConfigurationClusterId } from './zigbee-device-kinds.ts'
import { trackerClusterId, trackerClusterName, zclDataType } from './zigbee-profile.ts'

/** trkTracker's tableId attribute (docs/radio.md). */
const tableIdAttribute = { ID: 0x0000, type: zclDataType.uint16 }

type Endpoint = ZigbeeDevice['endpoints'][number]

/**
 * Reporting intervals, in seconds (docs/radio.md). tableId: at once when it changes (at most
 * once a second) and at least hourly, which is the tracker's check-in: a tracker silent for
 * three of them counts as unavailable. Battery: on a 1 % change at most hourly (ZCL counts
 * half percents, so 2), and at least every 6 h.
 */
export const reportingIntervals = {
  tableId: { minimumReportInterval: 1, maximumReportInterval: 3600, reportableChange: 1 },
  batteryPercentageRemaining: { minimumReportInterval: 3600, maximumReportInterval: 21_600, reportableChange: 2 },
} as const

/** Trackers report at least this often (tableId's maximum interval): their check-in. */
export const trackerCheckInMs = reportingIntervals.tableId.maximumReportInterval * 1000

function trackerEndpoint(device: ZigbeeDevice): Endpoint | undefined {
  return device.endpoints.find((endpoint) => endpoint.inputClusters.includes(trackerClusterId))
}

/** Whether the bindings and reporting a device of this role needs are already in place. */
export function isConfigured(device: ZigbeeDevice, role: DeviceRole, coordinator: Endpoint): boolean {
  if (role === 'repeater') return true
  const endpoint = trackerEndpoint(device)
  if (!endpoint?.hasBind(trackerClusterId, coordinator)) return false
  if (role === 'unit') return true
  return endpoint.configuredReportings.some((r) => r.cluster.ID === trackerClusterId && r.attribute.ID === tableIdAttribute.ID)
}

/**
 * Binds trkTracker (units and trackers) and genPowerCfg (trackers that serve it) to the
 * coordinator and configures the tracker's reports. Throws on the first refusal; the caller
 * tries again later (a sleepy tracker may have gone back to sleep).
 */
export async function configureDevice(device: ZigbeeDevice, role: DeviceRole, coordinator: Endpoint, manufacturerCode: number): Promise<void> {
  if (role === 'repeater') return
  const endpoint = trackerEndpoint(device)
  if (!endpoint) throw new Error(`zigbee device ${device.ieeeAddr} has no ${trackerClusterName} endpoint`)
  await endpoint.bind(trackerClusterName, coordinator)
  if (role !== 'tracker') return
  await endpoint.configureReporting(trackerClusterName, [{ attribute: tableIdAttribute, ...reportingIntervals.tableId }], { manufacturerCode })
  if (!endpoint.inputClusters.includes(powerConfigurationClusterId)) return
  await endpoint.bind('genPowerCfg', coordinator)
  await endpoint.configureReporting('genPowerCfg', [{ attribute: 'batteryPercentageRemaining', ...reportingIntervals.batteryPercentageRemaining }])
}
