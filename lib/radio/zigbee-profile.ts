// The tracker profile on Zigbee (documented for firmware teams in docs/radio.md): the
// manufacturer-specific cluster trkTracker, and how a herdsman message becomes a radio event.
import type { OrderType } from '../orders/types.ts'
import type { RadioEvents } from './radio.ts'

export const trackerClusterId = 0xfc00
export const trackerClusterName = 'trkTracker'
/** Herdsman's TEST_VENDOR_1 (0xFFF1) until a CSA-assigned manufacturer code exists. */
export const defaultManufacturerCode = 0xfff1

/**
 * ZCL data type ids (ZCL specification 07-5123, table 2-10; herdsman's Zcl.DataType has the
 * same values). Written out so that this module does not load zigbee-herdsman: only
 * zigbee.ts does.
 */
export const zclDataType = { uint8: 0x20, uint16: 0x21, enum8: 0x30, ieeeAddr: 0xf0 } as const

/** orderType on the air: 0 dine-in, 1 to go. */
export const orderTypeCodes: Record<number, OrderType> = { 0: 'ON_PREMISE', 1: 'TO_GO' }

/**
 * The cluster definition. Herdsman keeps custom clusters in memory only, so it is added to
 * every device at every start and on every join. Every attribute and command needs `name`
 * (herdsman 10.9.5 crashes parsing frames otherwise).
 */
export function trackerCluster(manufacturerCode: number) {
  return {
    ID: trackerClusterId,
    name: trackerClusterName,
    manufacturerCode,
    attributes: {
      tableId: { name: 'tableId', ID: 0x0000, type: zclDataType.uint16 },
      trackerNumber: { name: 'trackerNumber', ID: 0x0001, type: zclDataType.uint16 },
      pageState: { name: 'pageState', ID: 0x0002, type: zclDataType.enum8 },
    },
    commands: {},
    commandsResponse: {
      located: { name: 'located', ID: 0x00, parameters: [{ name: 'tableId', type: zclDataType.uint16 }] },
      started: {
        name: 'started',
        ID: 0x01,
        parameters: [
          { name: 'trackerIeee', type: zclDataType.ieeeAddr },
          { name: 'trackerNumber', type: zclDataType.uint16 },
          { name: 'orderType', type: zclDataType.enum8 },
        ],
      },
      cleared: {
        name: 'cleared',
        ID: 0x02,
        parameters: [
          { name: 'trackerIeee', type: zclDataType.ieeeAddr },
          { name: 'trackerNumber', type: zclDataType.uint16 },
        ],
      },
    },
  }
}

/** "0x00124b0001020304" → "00:12:4b:00:01:02:03:04" (the API's form). */
export function ieeeToAddress(ieee: string): string {
  return ieee.replace(/^0x/i, '').toLowerCase().match(/../g)!.join(':')
}

/** "00:12:4b:00:01:02:03:04" (or already "0x...") → "0x00124b0001020304" (herdsman's form). */
export function addressToIeee(address: string): string {
  const hex = address.replace(/^0x/i, '').replaceAll(':', '').toLowerCase()
  if (!/^[0-9a-f]{16}$/.test(hex)) throw new Error(`not an EUI-64 address: ${address}`)
  return `0x${hex}`
}

const nullIeee = /^0x0{16}$/

/** What the radio needs to know of a herdsman message (kept structural for tests). */
export interface ZigbeeMessage {
  type: string
  cluster: string | number
  data: unknown
  linkquality: number
  device: { ieeeAddr: string; type: string }
  /** The ZCL header's manufacturer code (absent when the frame carries none). */
  meta?: { manufacturerCode?: number }
}

/**
 * A frame on 0xFC00 without this gateway's manufacturer code: another vendor's cluster that
 * happens to use the same id (herdsman parses it with our definition all the same).
 */
export function isForeignTrackerFrame(message: ZigbeeMessage, manufacturerCode: number): boolean {
  const onTrackerCluster = message.cluster === trackerClusterName || message.cluster === trackerClusterId
  return onTrackerCluster && message.meta?.manufacturerCode !== manufacturerCode
}

export type ProfileEvent =
  | { kind: 'trackerStarted'; event: RadioEvents['trackerStarted'] }
  | { kind: 'trackerLocated'; event: RadioEvents['trackerLocated'] }
  | { kind: 'trackerCleared'; event: RadioEvents['trackerCleared'] }
  | { kind: 'trackerSeen'; event: RadioEvents['trackerSeen'] }

const validTable = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0 && (value as number) <= 0xfffe

/** genBasic.locationDesc carries the table number as decimal text, e.g. "12". */
function tableFromLocationDesc(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const text = value.trim()
  if (!/^[0-9]{1,5}$/.test(text)) return undefined
  const table = Number(text)
  return validTable(table) ? table : undefined
}

/**
 * Turns one herdsman message into the radio events it means. `isTracker` says whether the
 * sender is a tracker (it then also counts as a sign of life with its link quality). A
 * trkTracker frame is read only when it carries `manufacturerCode`.
 */
export function interpretMessage(message: ZigbeeMessage, at: number, isTracker: boolean, manufacturerCode = defaultManufacturerCode): ProfileEvent[] {
  const sender = ieeeToAddress(message.device.ieeeAddr)
  const data = (message.data && typeof message.data === 'object' && !Buffer.isBuffer(message.data) ? message.data : {}) as Record<string, unknown>
  const events: ProfileEvent[] = []
  const subject = (ieee: unknown) => (typeof ieee === 'string' && /^0x[0-9a-f]{16}$/i.test(ieee) && !nullIeee.test(ieee) ? ieeeToAddress(ieee) : sender)
  const isReport = message.type === 'attributeReport' || message.type === 'readResponse'

  if (isForeignTrackerFrame(message, manufacturerCode)) {
    // Ignored: not this profile's frame, whatever herdsman made of it.
  } else if (message.cluster === trackerClusterName) {
    if (message.type === 'commandLocated' && validTable(data.tableId)) {
      events.push({ kind: 'trackerLocated', event: { address: sender, table: data.tableId, at } })
    } else if (isReport && validTable(data.tableId)) {
      events.push({ kind: 'trackerLocated', event: { address: sender, table: data.tableId, at } })
    } else if (message.type === 'commandStarted' && Number.isInteger(data.trackerNumber) && (data.trackerNumber as number) > 0) {
      const orderType = orderTypeCodes[data.orderType as number]
      if (orderType) {
        events.push({
          kind: 'trackerStarted',
          event: { address: subject(data.trackerIeee), number: data.trackerNumber as number, orderType, at },
        })
      }
    } else if (message.type === 'commandCleared') {
      events.push({ kind: 'trackerCleared', event: { address: subject(data.trackerIeee), at } })
    }
  } else if (message.cluster === 'genBasic' && isReport) {
    const table = tableFromLocationDesc(data.locationDesc)
    if (table !== undefined) events.push({ kind: 'trackerLocated', event: { address: sender, table, at } })
  }

  if (isTracker) {
    const seen: RadioEvents['trackerSeen'] = { address: sender, linkQuality: message.linkquality, at }
    if (message.cluster === trackerClusterName && isReport && Number.isInteger(data.trackerNumber) && (data.trackerNumber as number) > 0) {
      seen.number = data.trackerNumber as number
    }
    // ZCL reports battery in half-percent steps (200 = 100 %); 0xFF means unknown.
    const half = data.batteryPercentageRemaining
    if (message.cluster === 'genPowerCfg' && Number.isInteger(half) && (half as number) <= 200) {
      seen.battery = Math.round((half as number) / 2)
    }
    events.push({ kind: 'trackerSeen', event: seen })
  }
  return events
}
