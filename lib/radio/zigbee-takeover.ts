// A replacement coordinator stick taking over the network (docs/operations.md "Replacing the
// coordinator stick"). herdsman does the takeover itself at start, from the coordinator backup
// it keeps in the data dir (coordinator_backup.json, the zigpy open coordinator backup format),
// when the stick is blank (or holds another network) and the backup's PAN ID, extended PAN
// ID, network key and channel match what herdsman is started with (zigbee-herdsman 10.9.5):
// - zstack (adapter/z-stack/adapter/manager.js determineStrategy, "restoreBackup"): restores
//   any unified backup (Z-Stack, EmberZNet, deCONZ), the coordinator's IEEE address included;
//   not onto a Z-Stack 1.2 stick from a 3.x backup;
// - deconz (deconz/driver/driver.js): takes any unified backup; clones the IEEE address and
//   raises the frame counter;
// - ember (ember/adapter/emberAdapter.js initTrustCenter, FORM_BACKUP): only a backup written
//   by an EmberZNet coordinator; any other makes every start fail ("not for EmberZNet
//   stack"), so the gateway refuses to start it and says what to do instead. The stick keeps
//   its own IEEE address; devices are bound to the coordinator again when they next speak;
// - zigate, zboss: write no backup (supportsBackup() is false): a new stick forms a new
//   network and every device must be paired again;
// - zoh: the network lives on the host, in zoh.save in the same directory: a new radio
//   (RCP) carries on with it.
// The gateway's part: start herdsman with exactly the stored network (network.json) and, when
// the backup is of that network but on another channel (a preset changed while the radio was
// down, or a process ended before it wrote its backup), on the backup's channel, so a blank
// stick restores it; the network is then moved to the chosen channel as any channel change is.
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { NetworkCredentials } from './zigbee-network.ts'

export const coordinatorBackupFileName = 'coordinator_backup.json'

/** Who wrote a coordinator backup: the stack families herdsman tells apart when restoring. */
export type BackupFamily = 'zstack' | 'ember' | 'other'

export interface CoordinatorBackupSummary {
  family: BackupFamily
  /** Colon-separated EUI-64 of the coordinator that wrote it. */
  coordinatorEui64: string | null
  channel: number | null
  panId: number | null
  extendedPanId: string | null
  networkKey: string | null
  devices: number
  /** When it was written (the file's own date, else its modification time), ms since the epoch. */
  at: number
}

export type StoredBackup = { state: 'none' } | { state: 'damaged'; error: string } | { state: 'ok'; backup: CoordinatorBackupSummary }

interface UnifiedBackup {
  metadata?: { format?: string; version?: number; internal?: { date?: string; znpVersion?: number; ezspVersion?: number } }
  stack_specific?: { zstack?: unknown; ezsp?: unknown }
  coordinator_ieee?: string
  pan_id?: string
  extended_pan_id?: string
  channel?: number
  network_key?: { key?: string }
  devices?: unknown[]
  adapterType?: string
}

const hexEui = (hex: string | undefined) => (hex && /^[0-9a-f]{16}$/i.test(hex) ? hex.toLowerCase().match(/../g)!.join(':') : null)

/** The coordinator backup in `dir` (the data dir's zigbee directory), read without herdsman. */
export function readCoordinatorBackup(dir: string): StoredBackup {
  const file = path.join(dir, coordinatorBackupFileName)
  let text: string
  let modified: number
  try {
    text = readFileSync(file, 'utf8')
    modified = statSync(file).mtimeMs
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'none' }
    return { state: 'damaged', error: (error as Error).message }
  }
  let data: UnifiedBackup
  try {
    data = JSON.parse(text) as UnifiedBackup
  } catch (error) {
    return { state: 'damaged', error: `not JSON (${(error as Error).message})` }
  }
  if (data && typeof data === 'object' && 'adapterType' in data) {
    // zigbee2mqtt's old Z-Stack format: only the zstack adapter reads it.
    return {
      state: 'ok',
      backup: {
        family: 'zstack',
        coordinatorEui64: null,
        channel: null,
        panId: null,
        extendedPanId: null,
        networkKey: null,
        devices: 0,
        at: Math.round(modified),
      },
    }
  }
  if (data?.metadata?.format !== 'zigpy/open-coordinator-backup' || data.metadata.version !== 1) {
    return { state: 'damaged', error: 'not a coordinator backup herdsman can read (zigpy/open-coordinator-backup version 1)' }
  }
  const internal = data.metadata.internal ?? {}
  const family: BackupFamily =
    internal.ezspVersion !== undefined || data.stack_specific?.ezsp
      ? 'ember'
      : internal.znpVersion !== undefined || data.stack_specific?.zstack
        ? 'zstack'
        : 'other'
  const date = internal.date ? Date.parse(internal.date) : Number.NaN
  return {
    state: 'ok',
    backup: {
      family,
      coordinatorEui64: hexEui(data.coordinator_ieee),
      channel: typeof data.channel === 'number' ? data.channel : null,
      panId: typeof data.pan_id === 'string' ? Number.parseInt(data.pan_id, 16) : null,
      extendedPanId: typeof data.extended_pan_id === 'string' ? data.extended_pan_id.toLowerCase() : null,
      networkKey: typeof data.network_key?.key === 'string' ? data.network_key.key.toLowerCase() : null,
      devices: Array.isArray(data.devices) ? data.devices.length : 0,
      at: Number.isFinite(date) ? date : Math.round(modified),
    },
  }
}

export type TakeoverSupport = 'any' | 'same family' | 'none' | 'host'

/** What each adapter does with a coordinator backup at start (see the header). */
export function takeoverSupport(adapter: string | undefined): TakeoverSupport | undefined {
  switch (adapter) {
    case 'zstack':
    case 'deconz':
      return 'any'
    case 'ember':
    case 'ezsp':
      return 'same family'
    case 'zigate':
    case 'zboss':
      return 'none'
    case 'zoh':
      return 'host'
    default:
      return undefined
  }
}

/** In one sentence, for the log, `gateway radio probe` and the board. */
export function describeTakeoverSupport(adapter: string | undefined): string {
  switch (takeoverSupport(adapter)) {
    case 'any':
      return `a blank ${adapter} stick takes the network over from coordinator_backup.json (written by a Z-Stack, EmberZNet or deCONZ coordinator), without pairing again`
    case 'same family':
      return `a blank ${adapter} stick takes the network over from a coordinator_backup.json written by an EmberZNet coordinator, without pairing again; a backup of another family cannot be used`
    case 'none':
      return `${adapter} keeps no coordinator backup: a replacement stick forms a new network and every device must be paired again`
    case 'host':
      return 'zoh keeps the network on this host (zoh.save in the data dir): a replacement radio carries on with it'
    default:
      return 'the adapter type is detected at start; set radio.adapter to know whether a replacement stick can take the network over'
  }
}

const toHex = (bytes: number[]) => Buffer.from(bytes).toString('hex')

/** Whether the backup is of the network these credentials name (the backup's order of the extended PAN ID, or reversed). */
export function backupOfNetwork(backup: CoordinatorBackupSummary, credentials: NetworkCredentials): boolean {
  if (backup.panId === null || backup.extendedPanId === null || backup.networkKey === null) return true
  const extended = toHex(credentials.extendedPanId)
  const reversed = toHex([...credentials.extendedPanId].reverse())
  return (
    backup.panId === credentials.panId &&
    (backup.extendedPanId === extended || backup.extendedPanId === reversed) &&
    backup.networkKey === toHex(credentials.networkKey)
  )
}

export interface StartPlan {
  /** The channel to start herdsman on. */
  channel: number
  /** Set when herdsman must not be started: why, and what to do. */
  refusal?: string
  /** Things to log as warnings before the start. */
  warnings: string[]
}

/**
 * How to start herdsman on the stored network so that a blank stick takes it over: the
 * channel, or why it cannot start at all.
 */
export function planStart(adapter: string | undefined, credentials: NetworkCredentials, wantedChannel: number, stored: StoredBackup): StartPlan {
  const support = takeoverSupport(adapter)
  const readsBackup = support === 'any' || support === 'same family' || support === undefined
  if (stored.state === 'none') return { channel: wantedChannel, warnings: [] }
  if (stored.state === 'damaged') {
    if (!readsBackup) return { channel: wantedChannel, warnings: [] }
    return {
      channel: wantedChannel,
      warnings: [],
      refusal: `coordinator_backup.json is damaged (${stored.error}): herdsman cannot start with it. Restore the file from a backup of the data dir, or move it aside (a replacement stick then cannot take the network over)`,
    }
  }
  const { backup } = stored
  if (support === 'same family' && backup.family !== 'ember') {
    return {
      channel: wantedChannel,
      warnings: [],
      refusal: `coordinator_backup.json was written by a ${backup.family === 'zstack' ? 'Z-Stack' : 'deCONZ or other'} coordinator, and an EmberZNet stick (adapter ${adapter}) cannot take over that network. To keep the network, use a Z-Stack or deCONZ stick (radio.adapter zstack or deconz); to form a new one on this stick, move coordinator_backup.json aside and pair every device again`,
    }
  }
  if (!readsBackup) return { channel: wantedChannel, warnings: [] }
  if (!backupOfNetwork(backup, credentials)) {
    return {
      channel: wantedChannel,
      warnings: [
        `coordinator_backup.json is of another network (PAN ID ${backup.panId?.toString(16)}) than network.json: a replacement stick cannot take this network over from it`,
      ],
    }
  }
  if (backup.channel !== null && backup.channel !== wantedChannel) {
    return {
      channel: backup.channel,
      warnings: [
        `the last coordinator backup has the network on channel ${backup.channel}: starting there (a blank stick takes it over only on its channel), then moving it to channel ${wantedChannel}`,
      ],
    }
  }
  return { channel: wantedChannel, warnings: [] }
}

/** What a start that formed a new network on an existing gateway's data dir means, and why. */
export function newNetworkFormed(adapter: string | undefined, stored: StoredBackup, credentials: NetworkCredentials): string {
  const why =
    takeoverSupport(adapter) === 'none'
      ? `${adapter} keeps no coordinator backup`
      : stored.state === 'none'
        ? 'there was no coordinator_backup.json to take it over from'
        : stored.state === 'ok' && !backupOfNetwork(stored.backup, credentials)
          ? 'coordinator_backup.json is of another network'
          : 'the stick did not take the network over from coordinator_backup.json'
  return `the coordinator formed a new network (${why}): every device must be paired again (herdsman kept its old device list as database.db.backup)`
}
