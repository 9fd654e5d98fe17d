// What a person or a client compares before trusting a certificate: its SHA-256 fingerprint,
// the SHA-256 of its public key (the pin Chromium's --ignore-certificate-errors-spki-list and
// HPKP-style clients take), the names it is valid for and until when.
import { createHash, X509Certificate } from 'node:crypto'
import { isIPv6 } from 'node:net'

export interface CertificateInfo {
  fingerprintSha256: string
  spkiSha256: string
  subjectAltNames: string[]
  validFrom: Date
  validTo: Date
}

/** An IPv6 SAN as node prints it (0:0:0:0:0:0:0:1) in its short form (::1), so lists compare. */
function normalAltName(entry: string): string {
  const prefix = 'IP Address:'
  if (!entry.startsWith(prefix)) return entry
  const address = entry.slice(prefix.length)
  if (!isIPv6(address)) return entry
  return prefix + new URL(`http://[${address}]/`).hostname.slice(1, -1)
}

export function altNamesOf(certificate: X509Certificate): string[] {
  return (certificate.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry !== '')
    .map(normalAltName)
}

/** The first certificate of a PEM (a chain's leaf) described. */
export function describeCertificate(certPem: string): CertificateInfo {
  const certificate = new X509Certificate(certPem)
  const spki = certificate.publicKey.export({ type: 'spki', format: 'der' })
  return {
    fingerprintSha256: certificate.fingerprint256,
    spkiSha256: createHash('sha256').update(spki).digest('base64'),
    subjectAltNames: altNamesOf(certificate),
    validFrom: new Date(certificate.validFrom),
    validTo: new Date(certificate.validTo),
  }
}
