// A hot backup of the running gateway: one file holding the whole box at one moment, while
// requests keep being answered.
//
// The moment is taken between two order operations (OrdersService.exclusive): every
// collection's documents are queued for at the same time (Store.snapshot: through each
// collection's own write queue, so no write is half in), with the change log's last seq and
// the history's last position. Only that takes place inside the pause: the documents are
// the in-memory versions of that moment and are serialised afterwards, in slices.
// The history goes through SQLite's online backup (node:sqlite backup(), a few pages per
// step in the thread pool); it may gain rows cleared after the moment, which are cut from
// the copy (positions run without gaps, so "above the moment's last position" is exact).
// The radio's files (herdsman's device database, the coordinator backup, the network
// credentials) are written afresh by the radio process first when it is up. The TLS keys and
// certificates (tls/) go in too, described in the manifest by their public-key pins: a
// restored box is the same box to every client that pinned it.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { backup as sqliteBackup, DatabaseSync } from 'node:sqlite'
import { setImmediate as yieldToRequests, setTimeout as sleep } from 'node:timers/promises'
import { partialSuffix, writeBackupFile, type BackupPart } from '../../lib/backup/archive-write.ts'
import { backupFormat, backupFormatVersion, collectionPart, historyPart, radioPart, tlsFileNames, tlsPart, type BackupCertificate, type BackupManifest } from '../../lib/backup/manifest.ts'
import { describeTlsFiles } from '../../lib/backup/tls-identity.ts'
import { tlsDir } from '../host/tls/certificate-files.ts'
import { serializeLine } from '../../lib/store/db.ts'
import type { Services } from '../wiring/services.ts'

export type BackupDeps = Pick<Services, 'config' | 'clock' | 'log' | 'store' | 'orders' | 'changes' | 'history' | 'identity' | 'radio' | 'settings'>

export interface TakeBackupOptions {
  /** The file to write; its directory must exist. */
  target: string
  passphrase?: string
}

/** Documents serialised between two yields to the event loop. */
const serialiseSlice = 2000
/** History pages copied per step of SQLite's online backup (4 KiB pages). */
const historyPagesPerStep = 64

export async function takeBackup(deps: BackupDeps, options: TakeBackupOptions): Promise<{ manifest: BackupManifest; bytes: number }> {
  const { log } = deps
  const coordinatorBackupFresh = await freshRadioFiles(deps)
  const moment = await deps.orders.exclusive(async () => {
    const collections = await deps.store.snapshot()
    const row = deps.history.db.prepare('SELECT coalesce(max(seq), 0) AS high FROM summaries').get() as { high: number }
    return { collections, seq: deps.changes.lastSeq, historyHigh: Number(row.high), at: deps.clock.now() }
  })
  const parts: BackupPart[] = []
  const counts: BackupManifest['counts'] = { collections: {}, activeOrders: 0, historyRows: 0, radioFiles: 0, tlsFiles: 0 }
  let reservedUpTo = moment.seq
  for (const [name, docs] of [...moment.collections].sort(([a], [b]) => a.localeCompare(b))) {
    parts.push({ name: collectionPart(name), bytes: await serialise(docs) })
    counts.collections[name] = docs.length
    if (name === 'activeorders') counts.activeOrders = docs.filter((doc) => (doc as { change?: { type?: string } }).change?.type !== 'ORDER_CLEARED').length
    if (name === 'seq') reservedUpTo = Math.max(reservedUpTo, ...docs.map((doc) => (doc as { reservedUpTo?: number }).reservedUpTo ?? 0))
  }
  const historyCopy = `${options.target}.history${partialSuffix}`
  try {
    counts.historyRows = await copyHistory(deps, historyCopy, moment.historyHigh)
    parts.push({ name: historyPart, file: historyCopy })
    const radioFiles = await readRadioFiles(deps.config.dataDir)
    for (const [name, bytes] of radioFiles) parts.push({ name: radioPart(name), bytes })
    counts.radioFiles = radioFiles.length
    const tls = await readTlsFiles(deps.config.dataDir, log)
    for (const [name, bytes] of tls.files) parts.push({ name: tlsPart(name), bytes })
    counts.tlsFiles = tls.files.size
    const written = await writeBackupFile(parts, {
      target: options.target,
      passphrase: options.passphrase,
      manifest: {
        format: backupFormat,
        formatVersion: backupFormatVersion,
        appVersion: deps.identity.version,
        deviceId: deps.identity.deviceId,
        takenAt: moment.at,
        seq: moment.seq,
        reservedUpTo,
        counts,
        coordinatorBackupFresh,
        tls: tls.certificates,
        webhookSigningKeyId: signingKeyIdOf(moment.collections.get('webhook-keys')),
      },
    })
    log.info({ file: options.target, bytes: written.bytes, seq: moment.seq, historyRows: counts.historyRows }, 'backup written')
    return written
  } finally {
    await removeCopy(historyCopy)
  }
}

/** Asks the radio process for a fresh coordinator backup; the files as they are when it cannot. */
async function freshRadioFiles(deps: BackupDeps): Promise<boolean> {
  if (!deps.radio.backupCoordinator) return false
  try {
    return await deps.radio.backupCoordinator()
  } catch (error) {
    deps.log.warn({ err: error }, 'the radio could not write a fresh coordinator backup; the backup holds its files as they were')
    return false
  }
}

async function serialise(docs: object[]): Promise<Buffer> {
  const chunks: string[] = []
  for (let start = 0; start < docs.length; start += serialiseSlice) {
    if (start) await yieldToRequests()
    let text = ''
    for (const doc of docs.slice(start, start + serialiseSlice)) text += `${serializeLine(doc)}\n`
    chunks.push(text)
  }
  return Buffer.from(chunks.join(''))
}

/** The history through SQLite's online backup, cut back to the moment; its number of rows. */
async function copyHistory(deps: BackupDeps, file: string, high: number): Promise<number> {
  await removeCopy(file)
  await sqliteBackup(deps.history.db, file, { rate: historyPagesPerStep })
  const copy = new DatabaseSync(file)
  try {
    copy.exec('PRAGMA journal_mode = DELETE')
    copy.prepare('DELETE FROM summaries WHERE seq > ?').run(high)
    // Positions run 1..N without gaps (lib/history/store.ts), so the last one is the count:
    // read from the index in microseconds, where count(*) would walk a million rows on the
    // event loop. The verification (in a worker) counts them and holds this against it.
    return Number((copy.prepare('SELECT coalesce(max(seq), 0) AS n FROM summaries').get() as { n: number }).n)
  } finally {
    copy.close()
  }
}

async function removeCopy(file: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) await fs.rm(`${file}${suffix}`, { force: true })
}

/** Every regular file of `<dataDir>/zigbee` (none with the simulated radio), by name. */
export async function readRadioFiles(dataDir: string): Promise<[string, Buffer][]> {
  const dir = path.join(dataDir, 'zigbee')
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return []
    throw error
  })
  const files: [string, Buffer][] = []
  // herdsman's own temporary files are left out: a later rename makes them the real ones.
  for (const entry of entries.filter((e) => e.isFile() && !e.name.endsWith('.tmp')).sort((a, b) => a.name.localeCompare(b.name))) {
    files.push([entry.name, await fs.readFile(path.join(dir, entry.name))])
  }
  return files
}

/** Tries to read a key and certificate that go together (an install or reissue replaces them one by one). */
const tlsReadAttempts = 5

/**
 * The TLS files of `<dataDir>/tls` (none when HTTPS never ran), each pair described. A pair
 * whose key is not its certificate's is read again (caught between the two files of a
 * `gateway tls install`); one that stays so is left out with a warning rather than failing
 * every backup (the TLS side makes the box's own anew when its pair is unreadable).
 */
export async function readTlsFiles(dataDir: string, log?: BackupDeps['log']): Promise<{ files: Map<string, Buffer>; certificates: BackupCertificate[] }> {
  const files = new Map<string, Buffer>()
  const certificates: BackupCertificate[] = []
  for (const source of ['self-signed', 'installed'] as const) {
    for (let attempt = 1; ; attempt++) {
      const pair = new Map<string, Buffer>()
      for (const name of tlsFileNames.filter((n) => n.startsWith(`${source}.`))) {
        const bytes = await fs.readFile(path.join(tlsDir(dataDir), name)).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined
          throw error
        })
        if (bytes) pair.set(name, bytes)
      }
      if (pair.size === 0) break
      try {
        certificates.push(...describeTlsFiles(pair))
        for (const [name, bytes] of pair) files.set(name, bytes)
        break
      } catch (error) {
        if (attempt < tlsReadAttempts) {
          await sleep(100 * attempt)
          continue
        }
        log?.warn({ err: error, source }, 'a TLS key and certificate that do not go together are left out of the backup')
        break
      }
    }
  }
  return { files, certificates }
}

function signingKeyIdOf(docs: object[] | undefined): string | null {
  const doc = docs?.find((d) => (d as { key?: string }).key === 'ed25519') as { kid?: string } | undefined
  return doc?.kid ?? null
}
