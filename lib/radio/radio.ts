// The radio as the rest of the gateway sees it. Two implementations: simulated.ts (the
// default virtual restaurant) and the Zigbee radio (zigbee-process.ts in the gateway, running
// zigbee.ts, the only file loading zigbee-herdsman (through herdsman.ts), in a child process).
import type { Subscribable } from '../kernel/events.ts'
import type { OrderType } from '../orders/types.ts'
import type { CoordinatorInfo } from './coordinator.ts'

export interface RadioEvents {
  /** A tracker was held over a starter unit. */
  trackerStarted: { address: string; number: number; orderType: OrderType; at: number }
  /** A tracker on a table reported the table's number. */
  trackerLocated: { address: string; table: number; at: number }
  /** A tracker was held over a clearing unit. */
  trackerCleared: { address: string; at: number }
  /** Any sign of life from a tracker (battery and link quality where known). */
  trackerSeen: { address: string; number?: number; battery?: number; linkQuality?: number; at: number }
  repeaterJoined: { extendedAddress: string; shortAddress: number; at: number; [field: string]: unknown }
  /** A device left the network or was removed from it (it must pair again to come back). */
  deviceLeft: { address: string; at: number }
  status: { up: boolean; detail?: string }
}

export interface RadioInfo {
  kind: 'simulated' | 'zigbee'
  up: boolean
  /** Colon-separated EUI-64 of the coordinator, e.g. 00:12:4b:00:01:02:03:04 */
  eui64: string
  channel: number
  panId: number
  permitJoinUntil: number | null
  /** The Zigbee radio process's supervision (zigbee-process.ts); absent for the simulated radio. */
  supervision?: {
    /** Why the radio last went down (kept after it is back), or null. */
    lastError: string | null
    /** Radio processes started again after a failure. */
    restarts: number
    /** When the next start is due (ms since the epoch), or null. */
    nextAttemptAt: number | null
    /** Resident memory of the radio process in bytes, or null while none runs. */
    rss: number | null
    pid: number | null
  }
  /** Devices paired in the network, the coordinator aside (when the radio can tell). */
  devices?: number
  /** Always-listening devices (repeaters, starter/clearing units) that stopped answering. */
  unavailable?: { address: string; role: 'repeater' | 'unit'; lastHeard: number | null }[]
  /** The Zigbee coordinator stick once it answered: type, firmware, IEEE, backup (lib/radio/coordinator.ts). */
  coordinator?: CoordinatorInfo
}

/** The coordinator's EUI-64 while the radio has not told it (RadioInfo.eui64). */
export const unknownEui64 = '00:00:00:00:00:00:00:00'

/** Subscribers are told of RadioEvents through `on` (lib/kernel/events.ts). */
export interface Radio extends Subscribable<RadioEvents> {
  readonly kind: 'simulated' | 'zigbee'
  start(): Promise<void>
  stop(): Promise<void>
  /** Makes the tracker buzz for leaseSeconds; it stops by itself when the lease ends. */
  page(address: string, leaseSeconds: number): Promise<void>
  /** Asks the tracker to stop buzzing now (best effort). */
  cancel(address: string): Promise<void>
  /** Opens joining for repeaters for up to 254 s; 0 closes it. */
  permitJoin(seconds: number): Promise<void>
  info(): Promise<RadioInfo>
  /**
   * Writes the radio's own files afresh (device database, coordinator backup) for a gateway
   * backup; resolves false when it could not (radio down). The simulated radio has none.
   */
  backupCoordinator?(): Promise<boolean>
}
