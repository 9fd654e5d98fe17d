// The certificates in the data dir (tls/): the box's own (made at first start, reissued with
// the same key when its names or addresses change or it nears its end) and one the
// restaurant's IT installed with `gateway tls install`. Keys are owner-only files (0600),
// written whole (temporary file, then rename) so a power cut never leaves half a key.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { TlsStatus } from '../../../lib/gateway/tls-status.ts'
import { describeCertificate } from './certificate-info.ts'
import { expectedAltNames, type LocalNames } from './local-names.ts'
import type { KeyAndCertificate } from './self-signed.ts'
import { makeSelfSignedInChild } from './self-signed-process.ts'

export interface CertificatePair {
  cert: string
  key: string
  source: TlsStatus['source']
}

/** Reissued this long before the end of validity. */
const renewBeforeMs = 30 * 24 * 60 * 60 * 1000

export function tlsDir(dataDir: string): string {
  return path.join(dataDir, 'tls')
}

const files = (dataDir: string, kind: 'self-signed' | 'installed') => ({
  cert: path.join(tlsDir(dataDir), `${kind}.crt`),
  key: path.join(tlsDir(dataDir), `${kind}.key`),
})

function writeWhole(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, text, { mode: 0o600 })
    chmodSync(temporary, 0o600)
    renameSync(temporary, file)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

function writePair(dataDir: string, kind: 'self-signed' | 'installed', pair: { cert: string; key: string }): void {
  mkdirSync(tlsDir(dataDir), { recursive: true, mode: 0o700 })
  const target = files(dataDir, kind)
  // The key first: a certificate is never there without its key.
  writeWhole(target.key, pair.key)
  writeWhole(target.cert, pair.cert)
}

function readPair(cert: string, key: string): { cert: string; key: string } | undefined {
  if (!existsSync(cert) || !existsSync(key)) return undefined
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') }
}

/** Why the box's own certificate must be reissued (undefined: it is fine as it is). */
export function reissueReason(certPem: string, local: LocalNames, now: Date): string | undefined {
  const info = describeCertificate(certPem)
  if (info.validTo.getTime() - now.getTime() < renewBeforeMs) return 'near its end of validity'
  const missing = expectedAltNames(local).filter((name) => !info.subjectAltNames.includes(name))
  return missing.length ? `does not name ${missing.join(', ')}` : undefined
}

export interface SelfSigned {
  pair: CertificatePair
  /** Why it was made or reissued now (undefined: the stored one is fine). */
  reissued: string | undefined
  /** Why it could not be stored (a full disk): it serves until the next start, which makes another. */
  unstored?: string
}

/** Stores a new pair; what went wrong when it cannot (it is served all the same). */
function store(dataDir: string, made: KeyAndCertificate): string | undefined {
  try {
    writePair(dataDir, 'self-signed', { cert: made.certPem, key: made.keyPem })
    return undefined
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message
  }
}

/**
 * The box's own certificate for these names and addresses: made with a new key at first
 * start, reissued with the same key (so a client pinning the key keeps trusting it) when
 * it does not name them all or nears its end.
 */
export async function ensureSelfSigned(dataDir: string, local: LocalNames, now: Date): Promise<SelfSigned> {
  const target = files(dataDir, 'self-signed')
  const current = readPair(target.cert, target.key)
  let reason: string | undefined = current ? undefined : 'none yet'
  if (current) {
    try {
      reason = reissueReason(current.cert, local, now)
    } catch {
      reason = 'unreadable'
    }
  }
  if (current && reason === undefined) return { pair: { ...current, source: 'self-signed' }, reissued: undefined }
  const keyPem = current && reason !== 'unreadable' ? current.key : undefined
  let made: KeyAndCertificate
  try {
    made = await makeSelfSignedInChild({ ...local, keyPem, now })
  } catch (error) {
    if (keyPem === undefined) throw error
    // A key node cannot read: start over with a new one.
    made = await makeSelfSignedInChild({ ...local, now })
    reason = 'its key was unreadable'
  }
  const unstored = store(dataDir, made)
  return { pair: { cert: made.certPem, key: made.keyPem, source: 'self-signed' }, reissued: reason, ...(unstored ? { unstored } : {}) }
}

/** The pair `gateway tls install` put in the data dir, if any. */
export function installedPair(dataDir: string): CertificatePair | undefined {
  const target = files(dataDir, 'installed')
  const pair = readPair(target.cert, target.key)
  return pair && { ...pair, source: 'installed' }
}

/** Stores a checked pair as the installed one (it wins over the box's own from now on). */
export function installPair(dataDir: string, pair: { cert: string; key: string }): void {
  writePair(dataDir, 'installed', pair)
}

/** Forgets the installed pair: the box's own certificate is used again. */
export function removeInstalledPair(dataDir: string): boolean {
  const target = files(dataDir, 'installed')
  if (!existsSync(target.cert) && !existsSync(target.key)) return false
  rmSync(target.cert, { force: true })
  rmSync(target.key, { force: true })
  return true
}

/** The pair from tls.certFile and tls.keyFile, read as they are now. */
export function configuredPair(certFile: string, keyFile: string): CertificatePair {
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), source: 'config' }
}
