// The webhook shapes the API shows: a registration's delivery state and who registers it, the
// public keys of the JWKS document. Data only, so the function contract can name them without
// loading the webhook service.
import type { JWK } from 'jose'

export type WebhookState = 'active' | 'failing' | 'disabled'

/** Who asks for an unauthenticated registration (its URL is on this address: lib/api/v1-register.ts). */
export interface RegisteringCaller {
  /** The caller's address (IPv4, or the IPv6 address). */
  ip: string
}

/** Who registers: the owning token (not an admin's), and an unauthenticated caller's address. */
export interface RegisteringWho {
  owner?: string
  caller?: RegisteringCaller
}

export interface WebhookStatus {
  url: string
  version: 'v1' | 'v2'
  state: WebhookState
  created: number
  lastSuccess: number | null
  lastError: { at: number; message: string } | null
  backlog: number
  dropped: number
}

export interface PublicJwk extends JWK {
  kid: string
}
