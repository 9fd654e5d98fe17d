// What radio upkeep shows (docs/radio.md "Upkeep"): the devices, the network map, an
// interview's result, and the upkeep a Zigbee radio offers. Data and interfaces only, so the
// function contract can name them without loading the radio.

export type InterviewStatus = 'successful' | 'failed' | 'pending' | 'in progress'

export interface RadioDevice {
  /** Colon-separated EUI-64. */
  address: string
  networkAddress: number
  type: 'Router' | 'EndDevice' | 'GreenPower' | 'Unknown'
  /** tracker, unit (starter/clearing) or repeater, once interviewed; null when not (yet) of this profile. */
  role: 'tracker' | 'unit' | 'repeater' | null
  model: string | null
  manufacturer: string | null
  interview: InterviewStatus
  lastSeen: number | null
  linkQuality: number | null
}

export interface MapNode {
  address: string
  networkAddress: number
  type: 'Coordinator' | 'Router' | 'EndDevice' | 'GreenPower' | 'Unknown'
  role: RadioDevice['role']
  model: string | null
}

/** One neighbour-table entry a router (or the coordinator) gave: `from` hears `to` at linkQuality (0-255). */
export interface MapLink {
  from: string
  to: string
  linkQuality: number
  relationship: 'parent' | 'child' | 'sibling' | 'previous child' | 'none'
  depth: number
}

export interface NetworkMap {
  at: number
  nodes: MapNode[]
  links: MapLink[]
  /** Routers that did not give their neighbour table (asleep, out of reach, or refusing). */
  unanswered: { address: string; error: string }[]
}

export interface InterviewResult {
  device: RadioDevice
  error: string | null
}

/** What the Zigbee radio offers for upkeep (ZigbeeRadio in the radio process, ZigbeeProcessRadio in the gateway). */
export interface RadioUpkeep {
  devices(): Promise<RadioDevice[]>
  /**
   * Interviews the device again (it must be awake: routers are, a tracker only right after a
   * press); a failed interview is an answer (error says why), not an exception.
   */
  interview(address: string): Promise<InterviewResult>
  /** Tells the device to leave the network and forgets it; `force` forgets one that does not answer. */
  remove(address: string, force: boolean): Promise<{ left: boolean }>
  networkMap(): Promise<NetworkMap>
}
