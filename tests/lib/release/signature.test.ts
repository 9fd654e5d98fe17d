// lib/release/signature.ts: a signature verifies with its key only, for the digest and the
// version it was made for; everything else is refused with a message that says why.
import { createHash, generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { keyIdOf, parseSignature, parseTrustedKey, ReleaseRefusedError, signRelease, verifyRelease } from '../../../lib/release/signature.ts'

function pair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    trusted: parseTrustedKey('chain.pub', publicKey.export({ type: 'spki', format: 'pem' }) as string),
  }
}
const digest = createHash('sha256').update('archive bytes').digest('hex')

t.test('a signature made with a trusted key verifies and names the version', async (t) => {
  const { privatePem, trusted } = pair()
  const other = pair()
  const signature = parseSignature(JSON.stringify(signRelease(privatePem, 'tracker-gateway-1.2.0.tar.gz', '1.2.0', digest)))
  t.equal(signature.keyId, keyIdOf(trusted.key))
  t.same(verifyRelease(signature, digest, [other.trusted, trusted]), { version: '1.2.0', keyId: keyIdOf(trusted.key), source: 'chain.pub' })
})

t.test('refused: another key, another digest, a changed version, no keys, not a signature', async (t) => {
  const { privatePem, trusted } = pair()
  const other = pair()
  const signature = signRelease(privatePem, 'a.tar.gz', '1.2.0', digest)
  t.throws(() => verifyRelease(signature, digest, [other.trusted]), { name: 'ReleaseRefusedError', message: /not made by any trusted release key/ })
  t.throws(() => verifyRelease(signature, '0'.repeat(64), [trusted]), /damaged or not the one signed/)
  t.throws(() => verifyRelease({ ...signature, version: '9.0.0' }, digest, [trusted]), /not made by any trusted release key/, 'the version is signed')
  t.throws(() => verifyRelease(signature, digest, []), /no trusted release key is installed/)
  t.throws(() => parseSignature('not json'), ReleaseRefusedError)
  t.throws(() => parseSignature('{"format":"x"}'), /not a release signature/)
  t.throws(() => parseTrustedKey('bad.pub', 'nonsense'), /bad.pub is not a PEM public key/)
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }) as string
  t.throws(() => parseTrustedKey('rsa.pub', rsa), /rsa.pub is rsa, not Ed25519/)
  const rsaPrivate = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
  t.throws(() => signRelease(rsaPrivate, 'a', '1.0.0', digest), /not Ed25519/)
})
