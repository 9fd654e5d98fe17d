// `gateway restore FILE`: a backup into a data dir, with the gateway stopped.
//
// The parts are written into a staging folder inside the data dir and checked there (every
// SHA-256, the history's integrity_check) before anything else is touched; only then is what
// the data dir held moved into `before-restore-<time>/` inside it (never deleted) and the
// restored files moved in. An interrupted restore is run again with --replace. The backup
// restored from stays where it is when it lives in the data dir (as `gateway upgrade`'s
// pre-upgrade backup does): moved aside, a restore run again after a kill would not find it.
//
// What differs from the backup, on purpose (docs/operations.md, Restore; docs/api.md):
// - The change log starts above anything the old box can have sent: seq floor =
//   max(the backup's reserved block, the restore time in microseconds since 1970). The old
//   box kept numbering after the backup; it could only pass that floor by recording more
//   than one change per microsecond on average since its own last restore.
// - The webhook and fleet outboxes start empty: their entries carry seq values at or below
//   the backup's, which the old box may have sent since (and sent newer ones after them).
// - Orders active in the backup stay active, with their real start times (see docs).
// What comes back exactly as it was, because clients pinned or trusted it: the TLS keys and
// certificates (tls/, owner-only), the device id, the webhook signing key and secrets, the
// tokens.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createWriteStream } from 'node:fs'
import { readBackupFile } from '../../lib/backup/archive-read.ts'
import { syncDirectory } from '../../lib/backup/archive-write.ts'
import { BackupDamagedError } from '../../lib/backup/errors.ts'
import { historyPart, type BackupManifest } from '../../lib/backup/manifest.ts'
import { checkHistoryFile } from '../../lib/backup/verify.ts'
import { checkTlsIdentity } from '../../lib/backup/tls-identity.ts'
import { ConfigError } from '../../lib/config.ts'
import { lockDataDir, ownerFileName } from '../wiring/data-dir-lock.ts'

/** Collections whose content is not carried over (see the header). */
const emptiedOnRestore = new Set(['webhook-outbox', 'fleet-outbox'])

export interface RestoreOptions {
  file: string
  dataDir: string
  passphrase?: string
  /** Move a non-empty data dir aside instead of refusing. */
  replace?: boolean
  /** The restore's time (ms since the epoch); default now. */
  now?: number
}

export interface RestoreResult {
  manifest: BackupManifest
  dataDir: string
  /** Where the data dir that was there went (only with replace). */
  movedAside: string | null
  /** The first seq the restored gateway can hand out is above this. */
  seqFloor: number
  /** Orders active in the backup, restored as active. */
  activeOrders: { name: number; locationName: number | null; created: number }[]
}

/** Seq floor from the clock: microseconds since 1970 (see the header). */
export function seqFloorAt(now: number, reservedUpTo: number): number {
  return Math.max(reservedUpTo, now * 1000)
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const dataDir = path.resolve(options.dataDir)
  const now = options.now ?? Date.now()
  const source = path.resolve(options.file)
  const keep = (name: string) => path.join(dataDir, name) !== source
  const present = (await ownEntries(dataDir)).filter(keep)
  if (present.length && !options.replace)
    throw new ConfigError(
      `data dir ${dataDir} is not empty; restore into an empty one, or add --replace (the present content is then moved aside, not deleted)`,
    )
  // Everything happens inside the data dir: the installed `gateway` command runs as the
  // service user, who owns the data dir but not its parent. The data dir's lock is held
  // throughout (a gateway starting meanwhile is refused; a running one refuses the restore).
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 })
  const lock = lockDataDir(dataDir)
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  const staging = path.join(dataDir, `${restoringPrefix}${stamp}`)
  try {
    for (const name of await fs.readdir(dataDir)) if (name.startsWith(restoringPrefix)) await fs.rm(path.join(dataDir, name), { recursive: true, force: true })
    await fs.mkdir(staging, { mode: 0o700 })
    const lines = new Map<string, string>()
    const { manifest } = await readBackupFile(options.file, {
      passphrase: options.passphrase,
      sink: (name, chunks) => writePart(staging, name, chunks, lines),
    })
    checkTlsIdentity(manifest, await filesOf(path.join(staging, 'tls')))
    const rows = checkHistoryFile(path.join(staging, historyPart))
    if (rows !== manifest.counts.historyRows) throw new BackupDamagedError(`the history holds ${rows} rows, the manifest says ${manifest.counts.historyRows}`)
    if (now < manifest.takenAt) {
      throw new ConfigError(
        `this computer's clock (${new Date(now).toISOString()}) is before the backup was taken (${new Date(manifest.takenAt).toISOString()}): set the clock (NTP) and restore again, so change numbers stay above what the old gateway sent`,
      )
    }
    const seqFloor = seqFloorAt(now, manifest.reservedUpTo)
    await fs.writeFile(path.join(staging, 'seq.db'), seqLines(lines.get('seq') ?? '', seqFloor), { mode: 0o600 })
    await syncTree(staging)
    // Only now is anything of the present data dir touched: moved into a folder of its own.
    let movedAside: string | null = null
    const old = (await ownEntries(dataDir)).filter(keep)
    if (old.length) {
      movedAside = path.join(dataDir, `${movedAsidePrefix}${stamp}`)
      await fs.mkdir(movedAside, { mode: 0o700 })
      for (const name of old) await fs.rename(path.join(dataDir, name), path.join(movedAside, name))
      await syncDirectory(movedAside)
    }
    for (const name of await fs.readdir(staging)) await fs.rename(path.join(staging, name), path.join(dataDir, name))
    await fs.rmdir(staging)
    await syncDirectory(dataDir)
    return { manifest, dataDir, movedAside, seqFloor, activeOrders: activeOrdersOf(lines.get('activeorders') ?? '') }
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true })
    throw error
  } finally {
    lock.release()
  }
}

const restoringPrefix = '.restoring-'
const movedAsidePrefix = 'before-restore-'
/** The data dir's lock and its holder's note: the running gateway's, not part of its state. */
const runtimeFiles = new Set(['gateway.lock', 'gateway.lock-journal', 'gateway.owner.json', 'gateway.sock'])

/** What the data dir holds (none if it does not exist), its lock files and a restore's staging aside. */
async function ownEntries(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[]
    throw error
  })
  return entries.filter((name) => !runtimeFiles.has(name) && !name.startsWith(`${ownerFileName}.`) && !name.startsWith(restoringPrefix))
}

/** Writes one part into the staging dir; names are checked, so no part lands outside it. */
async function writePart(staging: string, name: string, chunks: AsyncIterable<Buffer>, lines: Map<string, string>): Promise<void> {
  const collection = /^collections\/([a-z][a-z0-9-]*)\.db$/.exec(name)
  const radio = /^zigbee\/([A-Za-z0-9_][A-Za-z0-9._-]*)$/.exec(name)
  const tls = /^tls\/((?:self-signed|installed)\.(?:crt|key))$/.exec(name)
  if (collection) {
    const collectionName = collection[1]!
    // Kept in memory: what the restore reports (active orders) or rewrites (seq) from.
    if (collectionName === 'activeorders' || collectionName === 'seq') {
      const parts: Buffer[] = []
      for await (const chunk of chunks) parts.push(chunk)
      lines.set(collectionName, Buffer.concat(parts).toString('utf8'))
      if (collectionName === 'seq') return
      return fs.writeFile(path.join(staging, `${collectionName}.db`), Buffer.concat(parts), { mode: 0o600 })
    }
    if (emptiedOnRestore.has(collectionName)) return fs.writeFile(path.join(staging, `${collectionName}.db`), '', { mode: 0o600 })
    return pipeline(Readable.from(chunks), createWriteStream(path.join(staging, `${collectionName}.db`), { mode: 0o600 }))
  }
  if (name === historyPart) return pipeline(Readable.from(chunks), createWriteStream(path.join(staging, historyPart), { mode: 0o600 }))
  if (radio) {
    await fs.mkdir(path.join(staging, 'zigbee'), { recursive: true, mode: 0o700 })
    return pipeline(Readable.from(chunks), createWriteStream(path.join(staging, 'zigbee', radio[1]!), { mode: 0o600 }))
  }
  if (tls) {
    await fs.mkdir(path.join(staging, 'tls'), { recursive: true, mode: 0o700 })
    return pipeline(Readable.from(chunks), createWriteStream(path.join(staging, 'tls', tls[1]!), { mode: 0o600 }))
  }
  throw new BackupDamagedError(`unexpected part ${JSON.stringify(name)}`)
}

/** The change log's documents with the floor: the next seq is above it, and nothing below is re-sent. */
function seqLines(backupLines: string, floor: number): string {
  const ids = new Map<string, string>()
  for (const line of backupLines.split('\n').filter(Boolean)) {
    const doc = JSON.parse(line) as { _id: string; key: string }
    ids.set(doc.key, doc._id)
  }
  const seq = { key: 'seq', reservedUpTo: floor, _id: ids.get('seq') ?? 'restoredseq00001' }
  const announced = { key: 'announced', through: floor, _id: ids.get('announced') ?? 'restoredseq00002' }
  return `${JSON.stringify(seq)}\n${JSON.stringify(announced)}\n`
}

function activeOrdersOf(text: string): RestoreResult['activeOrders'] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { name: number; locationName: number | null; created: number; change?: { type: string } })
    .filter((order) => order.change?.type !== 'ORDER_CLEARED')
    .map(({ name, locationName, created }) => ({ name, locationName, created }))
    .sort((a, b) => a.created - b.created)
}

/** fsyncs every file and directory under `dir` (the rename that follows must not outrun them). */
async function syncTree(dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const target = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      await syncTree(target)
      continue
    }
    const handle = await fs.open(target, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  }
  await syncDirectory(dir)
}

/** The files of a folder by name (none if it does not exist). */
async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>()
  const names = await fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[]
    throw error
  })
  for (const name of names) files.set(name, await fs.readFile(path.join(dir, name)))
  return files
}
