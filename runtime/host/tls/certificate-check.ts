// Whether a certificate and key can serve HTTPS: both readable PEM, the key the certificate's,
// the certificate valid now. Refusals say what is wrong in words the restaurant's IT knows.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto'
import { createSecureContext as tlsSecureContext } from 'node:tls'

export class CertificateRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CertificateRefused'
  }
}

/** Checks a pair; throws CertificateRefused naming the problem. The certificate PEM may carry its chain after it. */
export function checkCertificatePair(certPem: string, keyPem: string, now: Date): void {
  let certificate: X509Certificate
  try {
    certificate = new X509Certificate(certPem)
  } catch {
    throw new CertificateRefused('the certificate file holds no PEM certificate (-----BEGIN CERTIFICATE-----)')
  }
  let key: KeyObject
  try {
    key = createPrivateKey(keyPem)
  } catch {
    throw new CertificateRefused(
      'the key file holds no unencrypted PEM private key (an encrypted key must be decrypted first: openssl pkey -in KEY -out PLAIN)',
    )
  }
  if (!certificate.checkPrivateKey(key)) throw new CertificateRefused('the key does not belong to the certificate (their public keys differ)')
  if (certificate.validToDate.getTime() <= now.getTime()) {
    throw new CertificateRefused(`the certificate expired on ${certificate.validToDate.toISOString()}`)
  }
  if (certificate.validFromDate.getTime() > now.getTime()) {
    throw new CertificateRefused(`the certificate is not valid before ${certificate.validFromDate.toISOString()} (is this box's clock right?)`)
  }
  try {
    tlsSecureContext({ cert: certPem, key: keyPem })
  } catch (error) {
    throw new CertificateRefused(`TLS cannot use this pair: ${(error as Error).message}`)
  }
}
