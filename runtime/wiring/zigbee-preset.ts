// Which zigbeePreset a gateway that never chose one gets, decided from its data dir: the
// running gateway (buildServices) and `gateway radio probe` (with the gateway stopped) must
// agree, or the probe would store another preset than the one the network was formed on.
import path from 'node:path'
import { zigbeeNetworkFormed } from '../../lib/radio/zigbee-network.ts'
import { formedNetworkPreset, newNetworkPreset } from '../../lib/settings/service.ts'

/** A (channel 11) where a Zigbee network was formed before B became the default, else B. */
export function defaultZigbeePreset(dataDir: string): string {
  return zigbeeNetworkFormed(path.join(dataDir, 'zigbee')) ? formedNetworkPreset : newNetworkPreset
}
