// A release archive fetched from headquarters for a rollout (issue 46): in ranges, appended to
// <file>.part, so a download cut off (the line, a restart) resumes where it stopped; at most
// bytesPerSecond on average, so a restaurant's line is never saturated; and checked against
// the SHA-256 HQ announced before it takes its final name (a damaged one is thrown away).
import { createHash } from 'node:crypto'
import { createReadStream, promises as fs } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

export interface FetchReleaseOptions {
  url: string
  /** The release's download secret (sent as X-Release-Secret). */
  secret: string
  /** Where the archive lands (its directory must exist). */
  file: string
  sha256: string
  size: number
  bytesPerSecond: number
  signal?: AbortSignal
}

export class ReleaseDownloadError extends Error {
  override name = 'ReleaseDownloadError'
}

async function sizeOf(file: string): Promise<number> {
  return fs.stat(file).then(
    (info) => info.size,
    () => 0,
  )
}

async function digest(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** Downloads (or finishes downloading) the archive; resolves once `file` holds the announced bytes. */
export async function fetchRelease(options: FetchReleaseOptions): Promise<void> {
  const { url, file, size, signal } = options
  const part = `${file}.part`
  let have = await sizeOf(part)
  if (have > size) {
    await fs.rm(part, { force: true })
    have = 0
  }
  // A piece is at most a second's worth: the pause that keeps the average is never long.
  const piece = Math.max(1024, Math.min(1024 * 1024, options.bytesPerSecond))
  const started = Date.now()
  let fetched = 0
  while (have < size) {
    signal?.throwIfAborted()
    const end = Math.min(size, have + piece) - 1
    let bytes: Buffer
    try {
      const answer = await fetch(url, {
        headers: { range: `bytes=${have}-${end}`, 'x-release-secret': options.secret },
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(60_000)]) : AbortSignal.timeout(60_000),
      })
      if (answer.status !== 206) throw new ReleaseDownloadError(`HQ answered HTTP ${answer.status} for bytes ${have}-${end} of ${url}`)
      bytes = Buffer.from(await answer.arrayBuffer())
    } catch (error) {
      if (signal?.aborted || error instanceof ReleaseDownloadError) throw error
      throw new ReleaseDownloadError(`cannot download ${url}: ${(error as Error).message}`)
    }
    if (bytes.length !== end - have + 1) throw new ReleaseDownloadError(`HQ sent ${bytes.length} bytes for bytes ${have}-${end}`)
    await fs.appendFile(part, bytes, { mode: 0o600 })
    have += bytes.length
    fetched += bytes.length
    const ahead = (fetched / options.bytesPerSecond) * 1000 - (Date.now() - started)
    if (ahead > 0 && have < size) await sleep(ahead, undefined, { signal })
  }
  const sha256 = await digest(part)
  if (sha256 !== options.sha256) {
    await fs.rm(part, { force: true })
    throw new ReleaseDownloadError(`the downloaded archive's SHA-256 is ${sha256}, HQ announced ${options.sha256}: thrown away`)
  }
  await fs.rename(part, file)
}
