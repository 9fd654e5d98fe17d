// The box's own certificate: an X.509 certificate for its P-256 key, signed by that key,
// naming the box as browsers and TLS clients look it up (host name, name.local, localhost,
// its addresses). node:crypto makes keys and signatures but cannot write a certificate, so
// the certificate's structure is @peculiar/asn1-x509's (pure JS, DER) and the signature is
// node:crypto's.
import { AsnConvert, OctetString } from '@peculiar/asn1-schema'
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_kp_serverAuth,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
} from '@peculiar/asn1-x509'
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { isIP } from 'node:net'

/** ecdsa-with-SHA256 (RFC 5758): the signature algorithm of the certificate. */
const ecdsaWithSha256 = '1.2.840.10045.4.3.2'
const commonNameOid = '2.5.4.3'
const organizationOid = '2.5.4.10'

/**
 * Ten years: the box is set up once and its certificate is trusted by comparing a fingerprint
 * (or pinning its key), not by a public CA whose rules (398 days) it cannot meet anyway.
 */
export const selfSignedValidityDays = 3650

export interface SelfSignedRequest {
  /** DNS names (host name, name.local, localhost). */
  names: string[]
  /** IPv4 and IPv6 addresses. */
  addresses: string[]
  /** The key to certify (PEM, PKCS#8); a new P-256 key when absent. */
  keyPem?: string
  now: Date
}

export interface KeyAndCertificate {
  keyPem: string
  certPem: string
}

function name(commonName: string): Name {
  const attribute = (type: string, value: string) =>
    new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) })])
  return new Name([attribute(organizationOid, 'Tracker Gateway'), attribute(commonNameOid, commonName.slice(0, 64))])
}

function extension(extnID: string, critical: boolean, value: unknown): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) })
}

function pem(label: string, der: ArrayBuffer | Buffer): string {
  const base64 = Buffer.from(der as ArrayBuffer).toString('base64')
  return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`
}

function newKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
}

/** A self-signed server certificate for the names and addresses (the key kept if given). */
export function makeSelfSigned(request: SelfSignedRequest): KeyAndCertificate {
  const privateKey = request.keyPem ? createPrivateKey(request.keyPem) : newKey()
  const spkiDer = createPublicKey(privateKey).export({ type: 'spki', format: 'der' })
  const names = [...new Set(request.names.filter((n) => n.length > 0))]
  const addresses = [...new Set(request.addresses.filter((a) => isIP(a) !== 0))]
  const subject = name(names[0] ?? addresses[0] ?? 'tracker-gateway')
  const notBefore = new Date(request.now.getTime() - 60 * 60 * 1000) // an hour of clock skew
  const notAfter = new Date(request.now.getTime() + selfSignedValidityDays * 24 * 60 * 60 * 1000)
  const serial = randomBytes(16)
  // Positive and minimal in DER: a first byte of 0x01-0x7f (0x00 before a byte under 0x80
  // is "illegal padding", which OpenSSL refuses: one certificate in 512 otherwise).
  serial[0] = (serial[0]! % 0x7f) + 1
  const signature = new AlgorithmIdentifier({ algorithm: ecdsaWithSha256 })
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: new Uint8Array(serial).buffer,
    signature,
    issuer: subject,
    subject,
    // GeneralizedTime past 2049 (RFC 5280 4.1.2.5): Time picks the right form for each date.
    validity: new Validity({ notBefore, notAfter }),
    subjectPublicKeyInfo: AsnConvert.parse(spkiDer, SubjectPublicKeyInfo),
    extensions: new Extensions([
      extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })),
      extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment)),
      extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage([id_kp_serverAuth])),
      extension(
        id_ce_subjectAltName,
        false,
        new SubjectAlternativeName([...names.map((dNSName) => new GeneralName({ dNSName })), ...addresses.map((iPAddress) => new GeneralName({ iPAddress }))]),
      ),
    ]),
  })
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs))
  const certificate = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: signature,
    signatureValue: new Uint8Array(sign('sha256', tbsDer, privateKey)).buffer,
  })
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    certPem: pem('CERTIFICATE', AsnConvert.serialize(certificate)),
  }
}
