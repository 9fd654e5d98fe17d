// What a herdsman device is to this gateway (docs/radio.md "Who may join"): a tracker, a
// starter/clearing unit, a repeater, or not of this profile (then it is removed).
import type { ZigbeeDevice } from './herdsman.ts'
import { trackerClusterId } from './zigbee-profile.ts'

export type { ZigbeeDevice }

export type DeviceRole = 'tracker' | 'unit' | 'repeater'

/** Zigbee 3.0 devices speak the Home Automation profile on their application endpoints. */
export const homeAutomationProfileId = 0x0104
export const powerConfigurationClusterId = 0x0001
export const identifyClusterId = 0x0003

export function hasTrackerCluster(device: ZigbeeDevice): boolean {
  return device.endpoints.some((endpoint) => endpoint.inputClusters.includes(trackerClusterId))
}

/**
 * The role of an interviewed device, or undefined when it is not of this profile:
 * - tracker: an End Device serving trkTracker (0xFC00) and genIdentify (paging);
 * - unit (starter or clearing unit): a Router serving trkTracker;
 * - repeater: any other Router (any Zigbee 3.0 router extends the mesh).
 * Every role needs an endpoint on the Home Automation profile. Anything else (another
 * vendor's sensor, a Green Power device, a router on another profile) is not ours.
 */
export function deviceRole(device: ZigbeeDevice): DeviceRole | undefined {
  if (!device.endpoints.some((endpoint) => endpoint.profileID === homeAutomationProfileId)) return undefined
  if (device.type === 'Router') return hasTrackerCluster(device) ? 'unit' : 'repeater'
  if (device.type !== 'EndDevice') return undefined
  const pageable = device.endpoints.some((endpoint) => endpoint.inputClusters.includes(identifyClusterId))
  return hasTrackerCluster(device) && pageable ? 'tracker' : undefined
}

export function isTracker(device: ZigbeeDevice): boolean {
  return deviceRole(device) === 'tracker'
}

/** Repeaters are routers; starter and clearing units (routers with trkTracker) are not. */
export function isRepeater(device: ZigbeeDevice): boolean {
  return deviceRole(device) === 'repeater'
}

/** Routers (repeaters and units) are mains powered and always listening: they can be pinged. */
export function isRouter(device: ZigbeeDevice): boolean {
  const role = deviceRole(device)
  return role === 'repeater' || role === 'unit'
}
