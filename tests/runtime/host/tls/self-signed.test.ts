// The box's own certificate: names and addresses in its subjectAltName, ten years of validity,
// a server certificate (not a CA) signed by its own key, the key kept when asked to.
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { createSecureContext } from 'node:tls'
import t from 'tap'
import { describeCertificate } from '../../../../runtime/host/tls/certificate-info.ts'
import { makeSelfSigned, selfSignedValidityDays } from '../../../../runtime/host/tls/self-signed.ts'

const now = new Date('2026-11-25T12:00:00Z')

t.test('subjectAltName, validity, key usage and signature', async (t) => {
  const made = makeSelfSigned({
    names: ['pass-box', 'pass-box.local', 'localhost', 'pass-box'],
    addresses: ['127.0.0.1', '::1', '192.168.1.20', 'fd00::20', 'not-an-ip'],
    now,
  })
  const certificate = new X509Certificate(made.certPem)
  const info = describeCertificate(made.certPem)
  t.same(
    info.subjectAltNames,
    ['DNS:pass-box', 'DNS:pass-box.local', 'DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:::1', 'IP Address:192.168.1.20', 'IP Address:fd00::20'],
    'each once, garbage left out',
  )
  t.match(certificate.subject, /CN=pass-box/)
  t.equal(certificate.issuer, certificate.subject, 'self-issued')
  t.ok(certificate.verify(certificate.publicKey), 'signed by its own key')
  t.ok(certificate.checkPrivateKey(createPrivateKey(made.keyPem)))
  t.equal(certificate.ca, false, 'a server certificate, not a CA')
  t.same(certificate.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'extended key usage: TLS server')
  t.equal(certificate.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1')
  t.equal(info.validFrom.getTime(), now.getTime() - 60 * 60 * 1000, 'an hour of clock skew allowed')
  t.equal(info.validTo.getTime(), now.getTime() + selfSignedValidityDays * 24 * 60 * 60 * 1000)
  t.match(info.fingerprintSha256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/)
  t.equal(Buffer.from(info.spkiSha256, 'base64').length, 32)
})

t.test('the key is kept when given: the public key pin stays, the fingerprint changes', async (t) => {
  const first = makeSelfSigned({ names: ['box'], addresses: ['10.0.0.5'], now })
  const again = makeSelfSigned({ names: ['box'], addresses: ['10.0.0.6'], keyPem: first.keyPem, now })
  t.equal(describeCertificate(again.certPem).spkiSha256, describeCertificate(first.certPem).spkiSha256)
  t.not(describeCertificate(again.certPem).fingerprintSha256, describeCertificate(first.certPem).fingerprintSha256)
  t.not(new X509Certificate(again.certPem).serialNumber, new X509Certificate(first.certPem).serialNumber, 'a new serial number')
  const fresh = makeSelfSigned({ names: ['box'], addresses: [], now })
  t.not(describeCertificate(fresh.certPem).spkiSha256, describeCertificate(first.certPem).spkiSha256, 'a new key otherwise')
})

t.test('validity past 2049 is written as GeneralizedTime and read back', async (t) => {
  const late = new Date('2045-01-01T00:00:00Z')
  const info = describeCertificate(makeSelfSigned({ names: [], addresses: ['127.0.0.1'], now: late }).certPem)
  t.equal(info.validTo.getUTCFullYear(), 2054)
  t.match(new X509Certificate(makeSelfSigned({ names: [], addresses: ['127.0.0.1'], now: late }).certPem).subject, /CN=127.0.0.1/)
})

t.test('every certificate is valid DER for OpenSSL: its serial number is positive and minimal', async (t) => {
  // A random 16-byte serial starting 0x00 then a byte under 0x80 is padded DER, which OpenSSL
  // refuses (one certificate in 512): 2,000 certificates would meet about four.
  const key = makeSelfSigned({ names: ['box'], addresses: [], now }).keyPem
  const refused: string[] = []
  for (let i = 0; i < 2000; i++) {
    const { certPem } = makeSelfSigned({ names: ['box'], addresses: [], keyPem: key, now })
    try {
      createSecureContext({ cert: certPem, key })
      const serial = new X509Certificate(certPem).serialNumber
      if (!/^(0[1-9A-F]|[1-7])/i.test(serial) || serial.length !== 32) refused.push(`serial ${serial}`)
    } catch (error) {
      refused.push((error as Error).message)
    }
  }
  t.same(refused, [], '2,000 certificates, each taken by OpenSSL with a 16-byte serial of 0x01-0x7f first')
})
