// Webhook signatures. Symmetric: Standard Webhooks (HMAC-SHA256 over "id.timestamp.body",
// `v1,<base64>`), with a per-registration secret `whsec_<base64 of 32 random bytes>`.
// Asymmetric: one ed25519 key per gateway (generated once, kept in the data dir's store),
// signing the same content as a `v1a,<base64>` entry of the same header, so receivers that
// prefer not to hold a secret verify with the public key from the JWKS route.
import crypto from 'node:crypto'
import type { JWK } from 'jose'
import type { Collection } from '../store/db.ts'
import type { PublicJwk } from './types.ts'
export type { PublicJwk } from './types.ts'

const secretPrefix = 'whsec_'

export function newSecret(): string {
  return secretPrefix + crypto.randomBytes(32).toString('base64')
}

export function signedContent(id: string, timestampSeconds: number, body: string): string {
  return `${id}.${timestampSeconds}.${body}`
}

/** Secret → its key, decoded once: every delivery signs with its registration's secret. */
const hmacKeys = new Map<string, crypto.KeyObject>()

export function hmacSignature(secret: string, content: string): string {
  let key = hmacKeys.get(secret)
  if (!key) {
    key = crypto.createSecretKey(Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64'))
    // Registrations are few; a map that only grows with them is emptied if it ever gets large.
    if (hmacKeys.size >= 256) hmacKeys.clear()
    hmacKeys.set(secret, key)
  }
  return `v1,${crypto.createHmac('sha256', key).update(content).digest('base64')}`
}

export type SigningKeyDoc = { key: 'ed25519'; jwk: JWK; kid: string; created: number }

export class SigningKey {
  readonly kid: string
  readonly #privateKey: crypto.KeyObject
  readonly #publicJwk: PublicJwk

  private constructor(doc: SigningKeyDoc) {
    this.kid = doc.kid
    this.#privateKey = crypto.createPrivateKey({ key: doc.jwk as crypto.JsonWebKey, format: 'jwk' })
    const { d: _private, ...publicPart } = doc.jwk
    this.#publicJwk = { ...publicPart, kid: doc.kid, alg: 'EdDSA', use: 'sig' }
  }

  /** Loads the gateway's key, generating and storing it on first use. */
  static async open(collection: Collection<SigningKeyDoc>, now: number): Promise<SigningKey> {
    const stored = await collection.findOne({ key: 'ed25519' })
    if (stored) return new SigningKey(stored)
    // jose is loaded only to make the key, once per gateway: later starts skip its import.
    const { calculateJwkThumbprint, exportJWK, generateKeyPair } = await import('jose')
    const { privateKey } = await generateKeyPair('Ed25519', { extractable: true })
    const jwk = await exportJWK(privateKey)
    const { d: _private, ...publicPart } = jwk
    const doc: SigningKeyDoc = { key: 'ed25519', jwk, kid: await calculateJwkThumbprint(publicPart), created: now }
    await collection.insert(doc)
    return new SigningKey(doc)
  }

  /** `v1a,<base64 ed25519 signature>` of the signed content. */
  sign(content: string): string {
    return `v1a,${crypto.sign(null, Buffer.from(content), this.#privateKey).toString('base64')}`
  }

  jwks(): { keys: PublicJwk[] } {
    return { keys: [this.#publicJwk] }
  }
}
