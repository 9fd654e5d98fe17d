import crypto from 'node:crypto'
import { createLocalJWKSet } from 'jose'
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v2/register/jwks publishes the ed25519 key without a token', async (t) => {
  const gw = await testGateway()
  t.teardown(() => gw.services.webhooks.close())
  const { status, body } = await gw.json('GET /api/v2/register/jwks')
  t.equal(status, 200)
  t.match(body, { returnCode: 19, keys: [{ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: String, x: String }] })
  t.notOk('d' in body.keys[0], 'never the private part')
  // The document is usable as a JWKS, and its key verifies the gateway's v1a signatures.
  const key = await createLocalJWKSet({ keys: body.keys })({ alg: 'EdDSA', kid: body.keys[0].kid })
  const signature = (await gw.services.webhooks.signingKey()).sign('msg.1.{}')
  t.ok(crypto.verify(null, Buffer.from('msg.1.{}'), crypto.KeyObject.from(key as CryptoKey), Buffer.from(signature.slice(4), 'base64')))
})
