// The inventory's shapes: a tracker and the order bound to it, a repeater as stored and as
// shown. Data only, so the function contract can name them without loading the inventories.

export interface TrackerBinding {
  uuid: string
  name: number
}

export interface TrackerRecord {
  number: number
  address: string
  /** When it was first held over a starter unit. */
  captured: number
  lastSeen: number
  battery: number | null
  linkQuality: number | null
  /** The active order this tracker is bound to, if any. */
  order: TrackerBinding | null
}

export interface RepeaterRecord {
  extendedAddress: string
  shortAddress: number
  label: string
  manufacturerId: number | null
  profileId: number | null
  parentShortAddress: number | null
  firmwareVersion: string | null
  hardwareVersion: number | null
  remainingChildren: number | null
  deviceType: string
  deviceModel: string | null
  firstSeen: number
  lastSeen: number
}

export interface RepeaterView extends Omit<RepeaterRecord, 'firstSeen' | 'lastSeen'> {
  status: 'ACTIVE' | 'INACTIVE'
  lastSeen: string
}
