// What a herdsman device is to this gateway: a tracker, a repeater, a starter/clearing unit.
// Type-only use of herdsman: lib/radio/zigbee.ts is the one module that loads it at runtime.
import type { Controller } from 'zigbee-herdsman'
import { trackerClusterId } from './zigbee-profile.ts'

/** A device in herdsman's database (herdsman does not export the class as a type). */
export type ZigbeeDevice = ReturnType<Controller['getDevices']>[number]

export function hasTrackerCluster(device: ZigbeeDevice): boolean {
  return device.endpoints.some((endpoint) => endpoint.inputClusters.includes(trackerClusterId))
}

/** Trackers are battery end devices. */
export function isTracker(device: ZigbeeDevice): boolean {
  return device.type === 'EndDevice'
}

/** Repeaters are routers; starter and clearing units (routers with trkTracker) are not. */
export function isRepeater(device: ZigbeeDevice): boolean {
  return device.type === 'Router' && !hasTrackerCluster(device)
}
