// The secret half of an access token: 48 lowercase hex characters from the CSPRNG. Only its
// SHA-256 ever reaches storage, and hashes are compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export const tokenPattern = /^[0-9a-f]{48}$/
/** How many leading characters lists show so an operator can tell tokens apart. */
export const prefixLength = 6

export function newTokenSecret(): string {
  return randomBytes(24).toString('hex')
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

/** Constant-time equality of two SHA-256 digests (always 32 bytes). */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

export function tokenPrefix(token: string): string {
  return token.slice(0, prefixLength)
}
