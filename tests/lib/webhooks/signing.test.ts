// The gateway's ed25519 signing key: made once with node:crypto, its kid the RFC 7638
// thumbprint jose computes (keys made by earlier versions keep theirs), its signatures
// verifiable with the public JWK alone.
import crypto from 'node:crypto'
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose'
import t from 'tap'
import { jwkThumbprint, SigningKey } from '../../../lib/webhooks/signing.ts'

/** A collection holding at most one document, as the key store is used. */
function oneDocCollection() {
  const docs: Record<string, unknown>[] = []
  return {
    docs,
    collection: {
      findOne: async (query: Record<string, unknown>) => docs.find((d) => Object.entries(query).every(([k, v]) => d[k] === v)) ?? null,
      insert: async (doc: Record<string, unknown>) => (docs.push(doc), doc),
    } as never,
  }
}

t.test('the thumbprint is jose\'s (RFC 7638)', async (t) => {
  for (let i = 0; i < 5; i++) {
    const { privateKey } = await generateKeyPair('Ed25519', { extractable: true })
    const { d: _d, ...publicPart } = await exportJWK(privateKey)
    t.equal(jwkThumbprint(publicPart), await calculateJwkThumbprint(publicPart))
  }
})

t.test('made once, stored, reopened the same; signatures verify with the public JWK', async (t) => {
  const { docs, collection } = oneDocCollection()
  const key = await SigningKey.open(collection, 1_700_000_000_000)
  t.equal(docs.length, 1)
  t.match(docs[0], { key: 'ed25519', kid: key.kid, created: 1_700_000_000_000, jwk: { kty: 'OKP', crv: 'Ed25519', x: String, d: String } })
  const [publicJwk] = key.jwks().keys
  t.same(Object.keys(publicJwk!).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x'], 'no private member published')
  t.equal(key.kid, await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: publicJwk!.x! }))
  const again = await SigningKey.open(collection, 1_800_000_000_000)
  t.equal(again.kid, key.kid)
  t.equal(docs.length, 1, 'not made again')
  const signature = key.sign('msg_1.1700000000.{"a":1}')
  t.match(signature, /^v1a,[A-Za-z0-9+/]+=*$/)
  const publicKey = crypto.createPublicKey({ key: publicJwk as unknown as crypto.JsonWebKey, format: 'jwk' })
  t.ok(crypto.verify(null, Buffer.from('msg_1.1700000000.{"a":1}'), publicKey, Buffer.from(signature.slice(4), 'base64')))
})
