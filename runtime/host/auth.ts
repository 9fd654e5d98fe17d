// The auth gate the router runs before every function (docs/api.md, "Access tokens and security").
// - v2 routes with auth 'bearer' need `Authorization: Bearer <token>`: a header of another
//   shape is 400 -1, a missing or unknown token 401 -2. security.openRoutes opens named routes.
// - v1 routes are open unless config v1.basicAuth: then Basic, user name = an access token,
//   empty password (GET /api/v1, the liveness probe, stays open like GET /api/v2).
// - Presented credentials that fail count against the client address; once it is limited,
//   such requests answer 429 -36 with Retry-After. Valid tokens are never refused, and a
//   missing header is not a guess, so it is not counted.
// - A valid token whose scope is below the route's (config.scope, docs/api.md "Scopes") is
//   403 -51 before the handler runs: it proved who it is, so it is not a failure to count.
import { DomainError } from '../../lib/kernel/errors.ts'
import { retryIn } from '../../lib/tokens/limiter.ts'
import { defaultScope, requireScope } from '../../lib/tokens/scopes.ts'
import type { Caller, ManifestEntry } from './function-types.ts'
import type { Services } from '../wiring/services.ts'

// RFC 6750 b64token; the token check itself decides whether the value is one of ours.
const bearerPattern = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i
const basicPattern = /^Basic ([A-Za-z0-9+/]+={0,2})$/i

type Credential = { token: string } | { malformed: true } | { missing: true }

export async function authorize(entry: ManifestEntry, request: Request, services: Services, caller: Caller): Promise<void> {
  authorizeNow(entry, request, services, caller)
}

/**
 * authorize() without a promise: every check it makes is synchronous (the token check is a
 * map lookup, or a hash for a token not seen before), and the router runs it for every
 * request, so it throws its refusal instead of rejecting (issue 30: one promise less).
 */
export function authorizeNow(entry: ManifestEntry, request: Request, services: Services, caller: Caller): void {
  const v1 = entry.path === '/api/v1' || entry.path.startsWith('/api/v1/')
  if (v1 ? !v1NeedsAuth(entry, services) : entry.auth !== 'bearer' || isOpened(entry, services)) return
  const header = request.headers.get('authorization') ?? ''
  const credential = v1 ? basicCredential(header) : bearerCredential(header)
  if ('missing' in credential) throw new DomainError('AUTH_REJECTED')
  const limiter = services.tokens.authFailures
  // Decided before this attempt counts: the attempt that empties the bucket still gets -1/-2.
  const retryAfter = limiter.retryAfter(caller.ip)
  if ('malformed' in credential) {
    if (retryAfter) throw new DomainError('RATE_LIMITED', retryIn(retryAfter), { retryAfter })
    limiter.recordFailure(caller.ip)
    services.log.warn({ ip: caller.ip, method: entry.method, route: entry.path }, 'malformed Authorization header')
    throw new DomainError('AUTH_MALFORMED')
  }
  const identity = services.tokens.verifyTokenNow(credential.token, caller.ip)
  if (!identity) {
    if (retryAfter) throw new DomainError('RATE_LIMITED', retryIn(retryAfter), { retryAfter })
    services.log.warn({ ip: caller.ip, method: entry.method, route: entry.path }, 'unknown access token')
    throw new DomainError('AUTH_REJECTED')
  }
  // A route that forgot its scope is refused to all but admin, never opened (the manifest check names it).
  if (identity.scope !== 'admin') requireScope(identity.scope, entry.scope ?? defaultScope, `${entry.method} ${entry.path}`)
  caller.token = identity
}

function isOpened(entry: ManifestEntry, services: Services): boolean {
  return services.config.security.openRoutes.includes(`${entry.method} ${entry.path}`)
}

function v1NeedsAuth(entry: ManifestEntry, services: Services): boolean {
  return services.config.v1.basicAuth && entry.path !== '/api/v1'
}

const missing: Credential = { missing: true }
const malformed: Credential = { malformed: true }

/** The last Bearer header read and its credential: a client sends the same one on every request. */
let lastBearer: { header: string; credential: Credential } = { header: '', credential: missing }

function bearerCredential(header: string): Credential {
  if (header === '') return missing
  if (header === lastBearer.header) return lastBearer.credential
  // "Bearer " is always 7 characters; test() spares the match array exec() made per request.
  const credential = bearerPattern.test(header) ? { token: header.slice(7) } : malformed
  lastBearer = { header, credential }
  return credential
}

/** Basic: base64 of "<token>:" (the password must be empty). */
function basicCredential(header: string): Credential {
  if (header === '') return { missing: true }
  const match = basicPattern.exec(header)
  if (!match) return { malformed: true }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return { malformed: true }
  // A password makes the pair wrong rather than malformed: it is a credential, just not ours.
  return { token: colon === decoded.length - 1 ? decoded.slice(0, colon) : '' }
}

/** Names in security.openRoutes that no manifest route has (a typo opens nothing). */
export function unknownOpenRoutes(manifest: Pick<ManifestEntry, 'method' | 'path'>[], openRoutes: string[]): string[] {
  const served = new Set(manifest.map((entry) => `${entry.method} ${entry.path}`))
  return openRoutes.filter((route) => !served.has(route))
}
