// What an access token may do (docs/api.md, "Scopes"). Each scope holds everything of the
// ones before it: `read` (GET routes that only read), `screen` (a wall screen: page, clear one,
// undo and recall), `pos` (a till: also clear every order and its own webhooks), `admin`
// (everything: settings, tokens, radio, backups). A route names the least scope it needs; a
// token without a stored scope predates scopes and was issued as `admin`.
import { DomainError } from '../kernel/errors.ts'

export const scopes = ['read', 'screen', 'pos', 'admin'] as const
export type Scope = (typeof scopes)[number]

/** What the button flow of the spec issues, and what a token stored without one is. */
export const defaultScope: Scope = 'admin'

/** What a screen signed in by a code gets unless its approver chooses otherwise. */
export const screenScope: Scope = 'screen'

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (scopes as readonly string[]).includes(value)
}

/** Whether a token of scope `held` may use a route that needs `needed`. */
export function scopeAllows(held: Scope, needed: Scope): boolean {
  return scopes.indexOf(held) >= scopes.indexOf(needed)
}

/** The scope named, `fallback` when absent; -54 for anything else. */
export function scopeOf(value: string | undefined, fallback: Scope = defaultScope): Scope {
  if (value === undefined) return fallback
  if (!isScope(value)) throw new DomainError('SCOPE_INVALID', value)
  return value
}

/** Refuses (403, -51) giving out more than the giver holds: a scope is only ever narrowed. */
export function assertWithin(held: Scope, wanted: Scope): void {
  if (!scopeAllows(held, wanted)) throw new DomainError('SCOPE_DENIED', `a ${held} token cannot give out ${wanted}`)
}

/** Refuses (403, -51) an action a token of scope `held` may not take: `what` needs `needed`. */
export function requireScope(held: Scope, needed: Scope, what: string): void {
  if (!scopeAllows(held, needed)) throw new DomainError('SCOPE_DENIED', `${what} needs ${needed}; this token is ${held}`)
}
