// The detached signature of a release archive (issue 46): Ed25519 over a short statement that
// names the archive's file name, its version and its SHA-256. The version is inside what is
// signed, so an old signed archive cannot be passed off as a new one by renaming it, and a
// damaged archive fails on its digest before any key is tried. The key pair is made once
// (scripts/release-key.ts keygen) and the private key stays with whoever builds releases;
// a gateway holds only public keys (/etc/tracker-gateway/release-keys/*.pub, install.sh).
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto'

/** What a .sig file holds (JSON). */
export interface ReleaseSignature {
  format: 'tracker-gateway-release-signature/1'
  algorithm: 'Ed25519'
  /** The signing key's id: the first 16 hex digits of the SHA-256 of its public key (SPKI DER). */
  keyId: string
  /** The archive's file name when it was signed (informative; the digest is what counts). */
  file: string
  version: string
  sha256: string
  /** Base64 Ed25519 signature of statement(version, sha256). */
  signature: string
}

/** Why an archive is not installed: the message says what to do. */
export class ReleaseRefusedError extends Error {
  override name = 'ReleaseRefusedError'
}

const format = 'tracker-gateway-release-signature/1'

function statement(version: string, sha256: string): Buffer {
  return Buffer.from(`${format}\nversion ${version}\nsha256 ${sha256}\n`)
}

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16)
}

/** Signs an archive's bytes (given as their SHA-256) with a PEM PKCS#8 Ed25519 private key. */
export function signRelease(privateKeyPem: string, file: string, version: string, sha256: string): ReleaseSignature {
  const key = createPrivateKey(privateKeyPem)
  if (key.asymmetricKeyType !== 'ed25519') throw new ReleaseRefusedError(`the signing key is ${key.asymmetricKeyType}, not Ed25519`)
  const signature = sign(null, statement(version, sha256), key).toString('base64')
  return { format, algorithm: 'Ed25519', keyId: keyIdOf(createPublicKey(key)), file, version, sha256, signature }
}

export interface TrustedKey {
  /** Where it came from (a file name), for messages. */
  source: string
  key: KeyObject
}

/** Reads PEM public keys; one that is not an Ed25519 public key is an error naming its file. */
export function parseTrustedKey(source: string, pem: string): TrustedKey {
  let key: KeyObject
  try {
    key = createPublicKey(pem)
  } catch (error) {
    throw new ReleaseRefusedError(`trusted key ${source} is not a PEM public key (${(error as Error).message})`)
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new ReleaseRefusedError(`trusted key ${source} is ${key.asymmetricKeyType}, not Ed25519`)
  return { source, key }
}

/** Parses a .sig file's text; anything else than the expected JSON is refused. */
export function parseSignature(text: string): ReleaseSignature {
  let value: Partial<ReleaseSignature>
  try {
    value = JSON.parse(text) as Partial<ReleaseSignature>
  } catch {
    throw new ReleaseRefusedError('the signature file is not a release signature (not JSON)')
  }
  const fields = ['keyId', 'file', 'version', 'sha256', 'signature'] as const
  if (value.format !== format || value.algorithm !== 'Ed25519' || fields.some((field) => typeof value[field] !== 'string'))
    throw new ReleaseRefusedError(`the signature file is not a release signature (${format}, Ed25519)`)
  return value as ReleaseSignature
}

/**
 * Checks a signature against the archive's digest and the trusted keys: resolves with the
 * signed version, or throws ReleaseRefusedError saying why (damaged, no trusted key, wrong key).
 */
export function verifyRelease(signature: ReleaseSignature, sha256: string, trusted: readonly TrustedKey[]): { version: string; keyId: string; source: string } {
  if (trusted.length === 0) throw new ReleaseRefusedError('no trusted release key is installed (install.sh --release-key FILE): nothing can be verified')
  if (signature.sha256 !== sha256)
    throw new ReleaseRefusedError(`the archive is damaged or not the one signed: its SHA-256 is ${sha256}, the signature is for ${signature.sha256}`)
  const payload = statement(signature.version, signature.sha256)
  const bytes = Buffer.from(signature.signature, 'base64')
  for (const { source, key } of trusted) {
    if (verify(null, payload, key, bytes)) return { version: signature.version, keyId: keyIdOf(key), source }
  }
  throw new ReleaseRefusedError(
    `the signature (key id ${signature.keyId}) is not made by any trusted release key (${trusted.map((t) => `${t.source} ${keyIdOf(t.key)}`).join(', ')})`,
  )
}
