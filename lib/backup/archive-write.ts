// Writes one backup file: the parts as a tar archive (tar-stream), the manifest last, optionally
// encrypted (encryption.ts). Crash-safe like every rewrite in the data dir: the bytes go to a
// temporary name in the target directory (mode 0600), are fsynced, renamed into place, and the
// directory fsynced. A kill or a full disk leaves at most a `.partial` file, which never looks
// like a backup and is removed by the next one; older backups are never touched here.
import { createHash } from 'node:crypto'
import { createReadStream, promises as fs } from 'node:fs'
import path from 'node:path'
import type tarStream from 'tar-stream'
import { encrypt } from './encryption.ts'
import { manifestDigest, manifestName, type BackupManifest, type ManifestPart } from './manifest.ts'
import { pipeline } from 'node:stream/promises'

/** A part: bytes in memory (collections, radio files) or a file on disk (the history copy). */
export type BackupPart = { name: string; bytes: Buffer } | { name: string; file: string }

export const partialSuffix = '.partial'
const syncEveryBytes = 8 * 1024 * 1024

export interface WriteBackupOptions {
  /** The file to write (its directory must exist). */
  target: string
  /** Encrypts the file when given. */
  passphrase?: string
  /** Everything but `parts` and the manifest's own checksum: filled in as they are written. */
  manifest: Omit<BackupManifest, 'parts' | 'manifestSha256'>
}

/**
 * Writes the parts in order, then the manifest (with its own checksum); resolves with the
 * manifest and the file's size. A failure anywhere (a part's file, the target's disk, the
 * encryption, an fsync, the rename) settles everything it started before it rejects: no
 * descriptor is left open (a file read for a part and removed after would keep its space
 * taken while the gateway runs) and the `.partial` file is gone.
 */
export async function writeBackupFile(parts: BackupPart[], options: WriteBackupOptions): Promise<{ manifest: BackupManifest; bytes: number }> {
  const partial = `${options.target}${partialSuffix}`
  const pack = (await loadTar()).pack()
  const listed: ManifestPart[] = []
  const produce = async (): Promise<BackupManifest> => {
    for (const part of parts) listed.push(await addPart(pack, part))
    const body = { ...options.manifest, parts: listed }
    const manifest: BackupManifest = { ...body, manifestSha256: manifestDigest(body) }
    await addPart(pack, { name: manifestName, bytes: Buffer.from(JSON.stringify(manifest, null, 2) + '\n') })
    pack.finalize()
    return manifest
  }
  const packed = pack as AsyncIterable<Buffer>
  const stream: AsyncIterable<Buffer> = options.passphrase !== undefined ? encrypt(packed, options.passphrase) : packed
  const handle = await fs.open(partial, 'wx', 0o600)
  let bytes = 0
  const consume = async () => {
    let unsynced = 0
    for await (const chunk of stream) {
      let offset = 0
      while (offset < chunk.length) offset += (await handle.write(chunk, offset)).bytesWritten
      bytes += chunk.length
      unsynced += chunk.length
      // Flushed as it goes: hundreds of MB left dirty would be flushed by the next
      // journal commit, which the gateway's own small fsyncs (every order) then wait for.
      if (unsynced >= syncEveryBytes) {
        await handle.datasync()
        unsynced = 0
      }
    }
  }
  // Either side failing ends the other: the producer waits on the pack, the consumer reads
  // it. Destroyed without an error: the error is the failing side's, thrown from here (an
  // 'error' event on the pack would have no listener once the consumer has stopped).
  const produced = produce().catch((error: unknown) => {
    pack.destroy()
    throw error
  })
  const consumed = consume().catch((error: unknown) => {
    pack.destroy()
    throw error
  })
  try {
    const [manifest] = await Promise.all([produced, consumed])
    await handle.sync()
    await handle.close()
    await fs.rename(partial, options.target)
    await syncDirectory(path.dirname(options.target))
    return { manifest, bytes }
  } catch (error) {
    // Both sides settled (the part being read closed) before the files go.
    await Promise.allSettled([produced, consumed])
    await handle.close().catch(() => undefined)
    await fs.rm(partial, { force: true }).catch(() => undefined)
    throw error
  }
}

async function addPart(pack: tarStream.Pack, part: BackupPart): Promise<ManifestPart> {
  const hash = createHash('sha256')
  if ('bytes' in part) {
    hash.update(part.bytes)
    await new Promise<void>((resolve, reject) => pack.entry({ name: part.name, size: part.bytes.length, mode: 0o600 }, part.bytes, (error) => (error ? reject(error) : resolve())))
    return { name: part.name, bytes: part.bytes.length, sha256: hash.digest('hex') }
  }
  const { size } = await fs.stat(part.file)
  // A destroyed pack refuses a new entry by throwing: that rejects this part, nothing opened.
  let entry: ReturnType<tarStream.Pack['entry']> | undefined
  const entered = new Promise<void>((resolve, reject) => {
    entry = pack.entry({ name: part.name, size, mode: 0o600 }, (error) => (error ? reject(error) : resolve()))
  })
  entered.catch(() => undefined)
  if (entry === undefined) await entered
  // pipeline() destroys the file's stream when the entry fails (the pack destroyed by a
  // full disk) and settles only once it is closed: pipe() would leave it open, paused.
  await pipeline(
    createReadStream(part.file),
    async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk)
        yield chunk
      }
    },
    entry!,
  )
  await entered
  return { name: part.name, bytes: size, sha256: hash.digest('hex') }
}

/**
 * tar-stream and its streams, loaded with the first backup: about 5 MB that a gateway which
 * never backs up (or not yet) does not carry from its start (docs/performance.md, History).
 */
export async function loadTar(): Promise<typeof tarStream> {
  return (await import('tar-stream')).default
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
