// Reads a backup file entry by entry (decrypting it when it is encrypted), hashing every part
// as it streams by, and checks the whole against the manifest at the end: every part listed,
// none missing, none extra, every SHA-256 matching. Callers decide what to do with each part
// (verify only, or write it into a data dir being restored).
import { createHash } from 'node:crypto'
import { createReadStream, promises as fs } from 'node:fs'
import { Readable } from 'node:stream'
import type tarStream from 'tar-stream'
import { loadTar } from './archive-write.ts'
import { decrypt, isEncrypted } from './encryption.ts'
import { BackupDamagedError } from './errors.ts'
import { manifestDigest, manifestName, manifestSchema, type BackupManifest } from './manifest.ts'

/** Called for each part with its bytes; whatever it returns is awaited before the next part. */
export type PartSink = (name: string, chunks: AsyncIterable<Buffer>) => Promise<void>

export interface ReadBackupOptions {
  passphrase?: string
  /** Receives every part but the manifest (default: its bytes are only hashed). */
  sink?: PartSink
}

export interface ReadBackupResult {
  manifest: BackupManifest
  encrypted: boolean
}

async function startsEncrypted(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r')
  try {
    const start = Buffer.alloc(8)
    const { bytesRead } = await handle.read(start, 0, 8, 0)
    return isEncrypted(start.subarray(0, bytesRead))
  } finally {
    await handle.close()
  }
}

export async function readBackupFile(file: string, options: ReadBackupOptions = {}): Promise<ReadBackupResult> {
  const encrypted = await startsEncrypted(file)
  const raw = createReadStream(file)
  const plain = encrypted ? Readable.from(decrypt(raw, options.passphrase)) : Readable.from(raw)
  const extract = (await loadTar()).extract()
  try {
    return await readArchive(plain, extract, options, encrypted)
  } finally {
    // Whatever ended the reading (a damaged part, a sink that failed on a full disk), nothing
    // stays open on the file: a paused stream would hold its descriptor for the process's life.
    extract.destroy()
    plain.destroy()
    await closed(raw)
  }
}

async function readArchive(plain: Readable, extract: tarStream.Extract, options: ReadBackupOptions, encrypted: boolean): Promise<ReadBackupResult> {
  const hashes = new Map<string, { bytes: number; sha256: string }>()
  let manifestText: string | undefined
  // Errors of the decryption come out of the extractor; keep the first one as it was thrown.
  let sourceError: unknown
  plain.on('error', (error) => {
    sourceError ??= error
    extract.destroy(error)
  })
  plain.pipe(extract)
  try {
    for await (const entry of extract) {
      const name = entry.header.name
      if (manifestText !== undefined) throw new BackupDamagedError(`part ${name} follows the manifest`)
      if (hashes.has(name)) throw new BackupDamagedError(`part ${name} appears twice`)
      const hash = createHash('sha256')
      let bytes = 0
      const counted = (async function* () {
        for await (const chunk of entry as AsyncIterable<Buffer>) {
          hash.update(chunk)
          bytes += chunk.length
          yield chunk
        }
      })()
      if (name === manifestName) {
        const chunks: Buffer[] = []
        for await (const chunk of counted) chunks.push(chunk)
        manifestText = Buffer.concat(chunks).toString('utf8')
        continue
      }
      if (options.sink) await options.sink(name, counted)
      // Whatever the sink left unread is still hashed, so the check below sees every byte.
      for await (const _ of counted);
      hashes.set(name, { bytes, sha256: hash.digest('hex') })
    }
  } catch (error) {
    const cause = sourceError ?? error
    if (cause instanceof Error && cause.name.startsWith('Backup')) throw cause
    // A sink's own failure (ENOSPC writing a part out) is not damage of the file: as it was.
    if (!sourceError && (error as NodeJS.ErrnoException).code !== undefined && (error as NodeJS.ErrnoException).syscall !== undefined) throw error
    throw new BackupDamagedError(`not a readable backup (${(cause as Error).message})`, { cause })
  }
  if (sourceError) throw sourceError
  if (manifestText === undefined) throw new BackupDamagedError('the file has no manifest (cut short, or not a backup)')
  const manifest = parseManifest(manifestText)
  for (const part of manifest.parts) {
    const found = hashes.get(part.name)
    if (!found) throw new BackupDamagedError(`part ${part.name} is missing`)
    if (found.bytes !== part.bytes || found.sha256 !== part.sha256) throw new BackupDamagedError(`part ${part.name} does not match its checksum`)
    hashes.delete(part.name)
  }
  const extra = [...hashes.keys()]
  if (extra.length) throw new BackupDamagedError(`parts not in the manifest: ${extra.join(', ')}`)
  return { manifest, encrypted }
}

/** Destroys a file stream and resolves once its descriptor is closed. */
async function closed(stream: ReturnType<typeof createReadStream>): Promise<void> {
  if (stream.closed) return
  const done = new Promise<void>((resolve) => stream.once('close', () => resolve()))
  stream.destroy()
  await done
}

function parseManifest(text: string): BackupManifest {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new BackupDamagedError('the manifest is not JSON')
  }
  const parsed = manifestSchema.safeParse(json)
  if (!parsed.success) throw new BackupDamagedError(`the manifest is not one this gateway reads (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message})`)
  // Over the JSON as written (its keys in the file's order), not the parsed copy.
  const own = (json as { manifestSha256?: string }).manifestSha256
  if (parsed.data.formatVersion >= 2 && own === undefined) throw new BackupDamagedError('the manifest has lost its own checksum (manifestSha256)')
  if (own !== undefined && own !== manifestDigest(json as object)) throw new BackupDamagedError('the manifest does not match its own checksum (its time, seq or counts were changed)')
  return parsed.data
}
