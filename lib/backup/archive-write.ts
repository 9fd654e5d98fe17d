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
import { manifestName, type BackupManifest, type ManifestPart } from './manifest.ts'

/** A part: bytes in memory (collections, radio files) or a file on disk (the history copy). */
export type BackupPart = { name: string; bytes: Buffer } | { name: string; file: string }

export const partialSuffix = '.partial'
const syncEveryBytes = 8 * 1024 * 1024

export interface WriteBackupOptions {
  /** The file to write (its directory must exist). */
  target: string
  /** Encrypts the file when given. */
  passphrase?: string
  /** Everything but `parts`: filled in from the parts as they are written. */
  manifest: Omit<BackupManifest, 'parts'>
}

/** Writes the parts in order, then the manifest; resolves with the manifest and the file's size. */
export async function writeBackupFile(parts: BackupPart[], options: WriteBackupOptions): Promise<{ manifest: BackupManifest; bytes: number }> {
  const partial = `${options.target}${partialSuffix}`
  const pack = (await loadTar()).pack()
  const listed: ManifestPart[] = []
  const produce = async (): Promise<BackupManifest> => {
    for (const part of parts) listed.push(await addPart(pack, part))
    const manifest: BackupManifest = { ...options.manifest, parts: listed }
    await addPart(pack, { name: manifestName, bytes: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) })
    pack.finalize()
    return manifest
  }
  const packed = pack as AsyncIterable<Buffer>
  const stream: AsyncIterable<Buffer> = options.passphrase !== undefined ? encrypt(packed, options.passphrase) : packed
  const handle = await fs.open(partial, 'wx', 0o600)
  let bytes = 0
  try {
    const consume = async () => {
      try {
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
      } catch (error) {
        // The producer waits on the pack: end it, or it never settles.
        pack.destroy(error as Error)
        throw error
      }
    }
    const [manifest] = await Promise.all([produce(), consume()])
    await handle.sync()
    await handle.close()
    await fs.rename(partial, options.target)
    await syncDirectory(path.dirname(options.target))
    return { manifest, bytes }
  } catch (error) {
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
  await new Promise<void>((resolve, reject) => {
    const entry = pack.entry({ name: part.name, size, mode: 0o600 }, (error) => (error ? reject(error) : resolve()))
    const source = createReadStream(part.file)
    source.on('data', (chunk) => hash.update(chunk))
    source.on('error', (error) => {
      entry.destroy(error)
      reject(error)
    })
    source.pipe(entry)
  })
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
