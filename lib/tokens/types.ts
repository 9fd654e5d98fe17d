// The token shapes the API and the services share: a stored token's record, a token just
// issued, the identity a verified token gives. Data only, so the function contract can name
// them without loading the token service.
import type { Scope } from './scopes.ts'

export interface TokenRecord {
  id: string
  name: string
  prefix: string
  scope: Scope
  createdAt: number
  lastUsedAt: number | null
  ipAddress: string | null
}

export interface IssuedToken {
  /** The full token: shown once, in the generate answer, and kept nowhere. */
  token: string
  record: TokenRecord
}

export interface TokenIdentity {
  name: string
  id: string
  scope: Scope
}

export interface PairingRequest {
  /** The poll handle: only the screen that asked knows it. */
  id: string
  /** What the screen shows, e.g. "K7QM-4XTP". */
  code: string
  /** The token name the screen suggests (its browser and a random tail). */
  name: string
  expiresAt: number
}

export type PairingPoll = { state: 'waiting'; expiresAt: number } | { state: 'approved'; issued: IssuedToken }
