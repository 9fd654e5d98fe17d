// A release archive fetched from headquarters for a rollout (issue 46): in ranges, appended to
// <file>.part, so a download cut off (the line, a restart) resumes where it stopped; at most
// bytesPerSecond on average, so a restaurant's line is never saturated; and checked against
// the SHA-256 HQ announced before it takes its final name (a damaged one is thrown away).
// Over HTTPS, HQ's certificate must be signed by the CA the site is configured with
// (lib/fleet/config.ts hqTrust; node:https, as global fetch cannot be given a CA), and a
// redirect is never followed: plain http only when that is the URL HQ was configured with.
import { createHash } from 'node:crypto'
import { createReadStream, promises as fs } from 'node:fs'
import type http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { HqTrust } from '../../lib/fleet/config.ts'
import { nodeHttp, nodeHttps } from '../../lib/kernel/node-http.ts'

export interface FetchReleaseOptions {
  url: string
  /** The release's download secret (sent as X-Release-Secret). */
  secret: string
  /** Where the archive lands (its directory must exist). */
  file: string
  sha256: string
  size: number
  bytesPerSecond: number
  /** The only CA(s) an https URL's certificate may be signed by; absent: the system's public CAs. */
  trust?: HqTrust
  signal?: AbortSignal
}

export class ReleaseDownloadError extends Error {
  override name = 'ReleaseDownloadError'
  /**
   * transient: a fault that may pass (the line, a timeout, HQ busy or restarting, a short
   * answer), so the site's agent tries again, keeping what it has; checksum: the whole archive
   * is not what HQ announced (thrown away); refused: anything else (a refused certificate, a
   * redirect, a missing release), not worth repeating.
   */
  readonly kind: 'transient' | 'checksum' | 'refused'

  constructor(message: string, kind: ReleaseDownloadError['kind'] = 'refused') {
    super(message)
    this.kind = kind
  }
}

/** HTTP answers that say "later", not "no". */
const passingStatus = (status: number) => status >= 500 || status === 408 || status === 429

/** A file's size; 0 when it is not there. */
export async function sizeOf(file: string): Promise<number> {
  return fs.stat(file).then(
    (info) => info.size,
    () => 0,
  )
}

/** A file's SHA-256, hex, read in a stream. */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** A certificate HQ presented that TLS refused (OpenSSL's verify codes, Node's name check). */
const certificateRefusal = /^(UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_|ERR_TLS_CERT_ALTNAME_INVALID)/

const pieceTimeoutMs = 60_000

interface Answer {
  status: number
  body: Buffer
}

/** One GET; at most `maxBytes` of its body are kept (more is an error). */
function get(url: URL, headers: Record<string, string>, agent: http.Agent, maxBytes: number, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? nodeHttps : nodeHttp).request(url, { headers, agent, signal })
    request.on('error', reject)
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size <= maxBytes) chunks.push(chunk)
        else response.destroy(new ReleaseDownloadError(`HQ sent more than the ${maxBytes} bytes asked for`))
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }))
      response.on('error', reject)
    })
    request.end()
  })
}

function downloadError(error: unknown, url: URL, trust: HqTrust | undefined, deadline: AbortSignal): ReleaseDownloadError {
  if (error instanceof ReleaseDownloadError) return error
  const { code, message } = error as NodeJS.ErrnoException
  if (code && certificateRefusal.test(code)) {
    const trusted = trust ? `the CA of ${trust.source}` : "the public CAs (fleet.rollout.ca names the CA that signed HQ's certificate)"
    // Node's own advice after the ";" (--use-system-ca) does not apply: the site trusts what it is configured with.
    return new ReleaseDownloadError(`HQ's certificate at ${url.host} is refused (${message.replace(/;.*$/s, '')}, ${code}): this site trusts only ${trusted}`)
  }
  if (deadline.aborted) return new ReleaseDownloadError(`cannot download ${url}: no answer within ${pieceTimeoutMs / 1000} s`, 'transient')
  return new ReleaseDownloadError(`cannot download ${url}: ${message}`, 'transient')
}

/** Downloads (or finishes downloading) the archive; resolves once `file` holds the announced bytes. */
export async function fetchRelease(options: FetchReleaseOptions): Promise<void> {
  const { file, size, signal, trust } = options
  const url = new URL(options.url)
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ReleaseDownloadError(`cannot download ${options.url}: not an http(s) URL`)
  const part = `${file}.part`
  let have = await sizeOf(part)
  if (have > size) {
    await fs.rm(part, { force: true })
    have = 0
  }
  // A piece is at most a second's worth: the pause that keeps the average is never long.
  const piece = Math.max(1024, Math.min(1024 * 1024, options.bytesPerSecond))
  // One connection kept for every piece (a TLS handshake once, not per piece).
  const agent =
    url.protocol === 'https:' ? new nodeHttps.Agent({ keepAlive: true, maxSockets: 1, ca: trust?.ca }) : new nodeHttp.Agent({ keepAlive: true, maxSockets: 1 })
  const started = Date.now()
  let fetched = 0
  try {
    while (have < size) {
      signal?.throwIfAborted()
      const end = Math.min(size, have + piece) - 1
      const deadline = AbortSignal.timeout(pieceTimeoutMs)
      let answer: Answer
      try {
        const headers = { range: `bytes=${have}-${end}`, 'x-release-secret': options.secret }
        answer = await get(url, headers, agent, Math.max(end - have + 1, 64 * 1024), signal ? AbortSignal.any([signal, deadline]) : deadline)
      } catch (error) {
        if (signal?.aborted) throw error
        throw downloadError(error, url, trust, deadline)
      }
      if (answer.status >= 300 && answer.status < 400)
        throw new ReleaseDownloadError(`HQ answered HTTP ${answer.status} for ${url}: redirects are not followed (releases.publicUrl must be HQ's own address)`)
      if (answer.status !== 206)
        throw new ReleaseDownloadError(
          `HQ answered HTTP ${answer.status} for bytes ${have}-${end} of ${url}`,
          passingStatus(answer.status) ? 'transient' : 'refused',
        )
      const bytes = answer.body
      if (bytes.length !== end - have + 1) throw new ReleaseDownloadError(`HQ sent ${bytes.length} bytes for bytes ${have}-${end}`, 'transient')
      await fs.appendFile(part, bytes, { mode: 0o600 })
      have += bytes.length
      fetched += bytes.length
      const ahead = (fetched / options.bytesPerSecond) * 1000 - (Date.now() - started)
      if (ahead > 0 && have < size) await sleep(ahead, undefined, { signal })
    }
  } finally {
    agent.destroy()
  }
  const sha256 = await sha256Of(part)
  if (sha256 !== options.sha256) {
    await fs.rm(part, { force: true })
    throw new ReleaseDownloadError(`the downloaded archive's SHA-256 is ${sha256}, HQ announced ${options.sha256}: thrown away`, 'checksum')
  }
  await fs.rename(part, file)
}
