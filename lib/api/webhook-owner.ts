// Whose webhooks a caller manages (docs/api.md, "Scopes"): a till's token (scope pos) its own,
// registered with it; an admin token, or a caller without one (open v1, a route opened by
// security.openRoutes), every registration, as before scopes.
import type { Scope } from '../tokens/scopes.ts'

export function webhookOwner(token: { id: string; scope: Scope } | undefined): string | undefined {
  return token && token.scope !== 'admin' ? token.id : undefined
}
