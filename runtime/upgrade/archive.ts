// Getting a release archive onto the box and deciding whether to install it: copied (or
// downloaded) with its detached signature into the releases dir's incoming/ (0700, owned by
// whoever upgrades: no other user can swap the file between the check and the unpack), its
// signature checked against the trusted keys, its version against the running one, then
// unpacked there and its package.json checked against the signed version.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, promises as fs, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { parseSignature, parseTrustedKey, ReleaseRefusedError, verifyRelease, type TrustedKey } from '../../lib/release/signature.ts'
import { compareVersions } from '../../lib/release/version.ts'

const run = promisify(execFile)

/** incoming/: created 0700; one that another user could write into is refused. */
export function privateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const info = lstatSync(dir)
  if (!info.isDirectory() || info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0)
    throw new ReleaseRefusedError(`${dir} must be a directory of uid ${process.getuid?.()} that only it can open (0700); it is not: nothing installed`)
  return dir
}

async function fetchTo(url: string, file: string, what: string): Promise<void> {
  let answer: Response
  try {
    answer = await fetch(url, { signal: AbortSignal.timeout(15 * 60_000) })
  } catch (error) {
    throw new ReleaseRefusedError(`cannot download the ${what} ${url}: ${(error as Error).message}`)
  }
  if (answer.status === 404 && what === 'signature') throw new ReleaseRefusedError(`the archive is unsigned: ${url} does not exist`)
  if (!answer.ok || !answer.body) throw new ReleaseRefusedError(`cannot download the ${what} ${url}: HTTP ${answer.status}`)
  await pipeline(Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream), createWriteStream(file, { mode: 0o600 }))
}

/** The archive and its signature, copied or downloaded into `dir`. */
export async function bringArchive(source: string, dir: string): Promise<{ archive: string; signature: string }> {
  const isUrl = /^https?:\/\//.test(source)
  const name = path.basename(isUrl ? new URL(source).pathname : source) || 'release.tar.gz'
  const archive = path.join(dir, name)
  const signature = `${archive}.sig`
  await fs.rm(archive, { force: true })
  await fs.rm(signature, { force: true })
  if (isUrl) {
    await fetchTo(source, archive, 'archive')
    await fetchTo(`${source}.sig`, signature, 'signature')
    return { archive, signature }
  }
  await fs.copyFile(source, archive).catch((error: NodeJS.ErrnoException) => {
    throw new ReleaseRefusedError(`cannot read ${source}: ${error.code}`)
  })
  await fs.copyFile(`${source}.sig`, signature).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new ReleaseRefusedError(`the archive is unsigned: there is no ${source}.sig beside it`)
    throw new ReleaseRefusedError(`cannot read ${source}.sig: ${error.code}`)
  })
  return { archive, signature }
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** The *.pub files of the keys dir. */
export function trustedKeys(dir: string): TrustedKey[] {
  let names: string[]
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.pub'))
  } catch {
    names = []
  }
  return names.sort().map((name) => parseTrustedKey(name, readFileSync(path.join(dir, name), 'utf8')))
}

export interface VerifiedArchive {
  archive: string
  version: string
  sha256: string
  keyId: string
}

/** Refuses (ReleaseRefusedError) a damaged, wrongly signed or older archive; resolves with what was signed. */
export async function verifyArchive(
  archive: string,
  signatureFile: string,
  keysDir: string,
  running: string,
  allowDowngrade: boolean,
): Promise<VerifiedArchive> {
  const sha256 = await sha256Of(archive)
  const signed = verifyRelease(parseSignature(await fs.readFile(signatureFile, 'utf8')), sha256, trustedKeys(keysDir))
  if (!allowDowngrade && compareVersions(signed.version, running) <= 0)
    throw new ReleaseRefusedError(
      `version ${signed.version} is ${signed.version === running ? 'the one running' : `older than the running ${running}`}; --allow-downgrade installs it anyway`,
    )
  return { archive, version: signed.version, sha256, keyId: signed.keyId }
}

/** Unpacks into `into` (made here) and returns the app's directory, after checking its package.json says the signed version. */
export async function unpack(verified: VerifiedArchive, into: string): Promise<string> {
  await fs.rm(into, { recursive: true, force: true })
  await fs.mkdir(into, { mode: 0o700 })
  try {
    await run('tar', ['-xzf', verified.archive, '-C', into, '--no-same-owner'])
  } catch (error) {
    throw new ReleaseRefusedError(`the archive does not unpack: ${((error as { stderr?: string }).stderr || (error as Error).message).trim()}`)
  }
  const top = await fs.readdir(into)
  const expected = `tracker-gateway-${verified.version}`
  if (top.length !== 1 || top[0] !== expected) throw new ReleaseRefusedError(`the archive holds ${top.join(', ') || 'nothing'}, not one directory ${expected}`)
  const app = path.join(into, expected)
  const version = await fs
    .readFile(path.join(app, 'package.json'), 'utf8')
    .then((text) => (JSON.parse(text) as { version?: string }).version)
    .catch(() => undefined)
  if (version !== verified.version) throw new ReleaseRefusedError(`the archive's package.json says version ${version}, its signature ${verified.version}`)
  return app
}
