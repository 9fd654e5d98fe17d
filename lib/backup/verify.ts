// `gateway backup verify FILE`, and the check a scheduled backup passes before older ones
// are removed: the manifest is there and readable, every part matches its SHA-256, the file
// decrypts, each collection holds the documents the manifest counts, and the history copy
// passes SQLite's integrity_check with the rows the manifest counts, and each TLS key is its
// certificate's, the one the manifest names (by its public-key pin).
import { constants, createWriteStream, promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import { DatabaseSync } from 'node:sqlite'
import path from 'node:path'
import { readBackupFile } from './archive-read.ts'
import { partialSuffix } from './archive-write.ts'
import { BackupDamagedError } from './errors.ts'
import { historyPart, type BackupManifest } from './manifest.ts'
import { checkTlsIdentity } from './tls-identity.ts'

export interface VerifyOptions {
  passphrase?: string
  /** Where the history copy is checked (default: beside the file). */
  scratchDir?: string
}

export async function verifyBackup(file: string, options: VerifyOptions = {}): Promise<BackupManifest> {
  const scratch = path.join(options.scratchDir ?? (await scratchDirFor(file)), `.${path.basename(file)}.verify${partialSuffix}`)
  const lines = new Map<string, number>()
  const tls = new Map<string, Buffer>()
  try {
    const { manifest } = await readBackupFile(file, {
      passphrase: options.passphrase,
      sink: async (name, chunks) => {
        if (name === historyPart) return void (await pipeline(Readable.from(chunks), createWriteStream(scratch, { mode: 0o600 })))
        if (name.startsWith('collections/')) lines.set(name, await countLines(chunks))
        if (name.startsWith('tls/')) tls.set(name.slice('tls/'.length), await bytesOf(chunks))
      },
    })
    for (const [name, count] of Object.entries(manifest.counts.collections)) {
      const found = lines.get(`collections/${name}.db`)
      if (found !== count) throw new BackupDamagedError(`collection ${name} holds ${found ?? 'no'} documents, the manifest says ${count}`)
    }
    checkTlsIdentity(manifest, tls)
    const rows = checkHistoryFile(scratch)
    if (rows !== manifest.counts.historyRows) throw new BackupDamagedError(`the history holds ${rows} rows, the manifest says ${manifest.counts.historyRows}`)
    return manifest
  } finally {
    await fs.rm(scratch, { force: true })
    await fs.rm(`${scratch}-wal`, { force: true })
    await fs.rm(`${scratch}-shm`, { force: true })
  }
}

/** Beside the file (room like the backup's own) unless that is read-only (a stick mounted so): the temp dir. */
async function scratchDirFor(file: string): Promise<string> {
  const dir = path.dirname(file)
  return fs.access(dir, constants.W_OK).then(
    () => dir,
    () => tmpdir(),
  )
}

/** SQLite's integrity_check on a history file; its number of summaries. */
export function checkHistoryFile(file: string): number {
  let db: DatabaseSync
  try {
    db = new DatabaseSync(file)
  } catch (error) {
    throw new BackupDamagedError(`the history copy cannot be opened (${(error as Error).message})`, { cause: error })
  }
  try {
    const result = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]
    if (result.length !== 1 || result[0]!.integrity_check !== 'ok') throw new BackupDamagedError(`the history copy fails SQLite's integrity check: ${result.map((row) => row.integrity_check).slice(0, 3).join('; ')}`)
    return Number((db.prepare('SELECT count(*) AS n FROM summaries').get() as { n: number }).n)
  } catch (error) {
    if (error instanceof BackupDamagedError) throw error
    throw new BackupDamagedError(`the history copy is damaged (${(error as Error).message})`, { cause: error })
  } finally {
    db.close()
  }
}

async function countLines(chunks: AsyncIterable<Buffer>): Promise<number> {
  let count = 0
  for await (const chunk of chunks) for (const byte of chunk) if (byte === 0x0a) count++
  return count
}

async function bytesOf(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const chunk of chunks) parts.push(chunk)
  return Buffer.concat(parts)
}
