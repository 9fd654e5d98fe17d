// The coordinator stick as installers ask about it: its type and firmware as herdsman reads
// them (getCoordinatorVersion), its IEEE address, how the last start found the network, and
// whether a replacement stick could take the network over (zigbee-takeover.ts).

export interface CoordinatorInfo {
  /** radio.adapter as configured, or null when herdsman detected it. */
  adapter: string | null
  /** herdsman's name for the stick's stack, e.g. zStack3x0, EmberZNet, ConBee2/RaspBee2, zigate, zboss. */
  type: string
  /** The firmware version as the stick reports it, or null when it does not. */
  firmware: string | null
  /** Colon-separated EUI-64. */
  eui64: string
  /** How this start found the network: resumed, restored (taken over from the coordinator backup), reset (formed anew). */
  start: 'resumed' | 'restored' | 'reset'
  backup: {
    /** Whether the adapter writes coordinator_backup.json (null: not known yet). */
    supported: boolean | null
    /** When the coordinator backup in the data dir was written, or null when there is none. */
    at: number | null
    /** What a replacement stick of this adapter type can do with it, in one sentence. */
    takeover: string
  }
}

/** herdsman's CoordinatorVersion.meta differs by adapter; every one names a revision of some kind. */
export function firmwareOf(meta: Record<string, unknown> | undefined): string | null {
  if (!meta) return null
  const revision = meta.revision
  if ((typeof revision === 'string' && revision !== '' && revision !== 'unknown') || (typeof revision === 'number' && revision > 0)) return String(revision)
  const parts = [meta.majorrel, meta.minorrel, meta.maintrel]
  if (parts.every((part) => typeof part === 'number' || typeof part === 'string')) return parts.join('.')
  return null
}

/** One line for the log and `gateway status`. */
export function describeCoordinator(info: CoordinatorInfo): string {
  return `${info.type}${info.adapter ? ` (adapter ${info.adapter})` : ''}, firmware ${info.firmware ?? 'unknown'}, IEEE ${info.eui64}`
}
