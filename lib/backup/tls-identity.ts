// The TLS identity a backup carries: each certificate with its key (the box's own, one
// installed with `gateway tls install`), described by what a client pins or compares (the
// public key's SHA-256, the certificate's fingerprint). A restored box serves the same key,
// so kiosks and POS that pinned the box keep trusting it.
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto'
import { BackupDamagedError } from './errors.ts'
import type { BackupCertificate } from './manifest.ts'

export type TlsSource = BackupCertificate['source']

/** Describes a pair; throws when the key is not the certificate's (or either is unreadable). */
export function describeTlsPair(source: TlsSource, certPem: string, keyPem: string): BackupCertificate {
  let certificate: X509Certificate
  try {
    certificate = new X509Certificate(certPem)
    if (!certificate.checkPrivateKey(createPrivateKey(keyPem))) throw new Error('the key is not the certificate\'s')
  } catch (error) {
    throw new BackupDamagedError(`the ${source} TLS certificate and key do not go together (${(error as Error).message})`, { cause: error })
  }
  return {
    source,
    spkiSha256: createHash('sha256').update(certificate.publicKey.export({ type: 'spki', format: 'der' })).digest('base64'),
    fingerprintSha256: certificate.fingerprint256,
    validTo: certificate.validToDate.toISOString(),
  }
}

/** The pairs among TLS files named `<source>.crt` / `<source>.key`, described (both must be there). */
export function describeTlsFiles(files: Map<string, Buffer>): BackupCertificate[] {
  const described: BackupCertificate[] = []
  for (const source of ['self-signed', 'installed'] as const) {
    const cert = files.get(`${source}.crt`)
    const key = files.get(`${source}.key`)
    if (cert === undefined && key === undefined) continue
    if (cert === undefined || key === undefined) throw new BackupDamagedError(`the ${source} TLS ${cert === undefined ? 'certificate' : 'key'} is missing`)
    described.push(describeTlsPair(source, cert.toString('utf8'), key.toString('utf8')))
  }
  return described
}

/** The TLS parts of a backup (by file name) hold the pairs its manifest names, pin for pin. */
export function checkTlsIdentity(manifest: { tls?: BackupCertificate[] }, files: Map<string, Buffer>): void {
  const found = describeTlsFiles(files)
  const listed = manifest.tls ?? []
  for (const certificate of listed) {
    const match = found.find((f) => f.source === certificate.source)
    if (!match) throw new BackupDamagedError(`the ${certificate.source} TLS certificate named in the manifest is missing`)
    if (match.spkiSha256 !== certificate.spkiSha256 || match.fingerprintSha256 !== certificate.fingerprintSha256) throw new BackupDamagedError(`the ${certificate.source} TLS certificate is not the one the manifest names`)
  }
  const unlisted = found.filter((f) => !listed.some((c) => c.source === f.source))
  if (unlisted.length) throw new BackupDamagedError(`TLS certificates not named in the manifest: ${unlisted.map((f) => f.source).join(', ')}`)
}
