import { revokeTokenQuery } from '../../lib/api/token-input.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import { requireScope } from '../../lib/tokens/scopes.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/accesstoken',
  auth: 'bearer',
  scope: 'read',
  code: 1,
  summary: 'Revoke the calling token (any scope: signing out), or with ?name= every token of that name (admin only, else 403/-51); effective at once',
  // Revoking by name is managing tokens: admin, whatever the route lets in (checked below).
  query: { name: { ...revokeTokenQuery.params().name!, scope: 'admin' } },
  outcomes: ['TOKEN_DELETED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'TOKEN_NAME_INVALID', 'TOKEN_NOT_FOUND', 'SCOPE_DENIED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { revoked: number }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { name } = revokeTokenQuery.parse(ctx.query)
  if (name !== undefined) {
    // A route opened by security.openRoutes has no caller token and stays as opened.
    if (ctx.caller.token) requireScope(ctx.caller.token.scope, config.query.name.scope, 'revoking tokens by name')
    const revoked = await ctx.services.tokens.revokeByName(name)
    return ctx.ok({ revoked }, { outcome: 'TOKEN_DELETED' })
  }
  if (!ctx.caller.token || !(await ctx.services.tokens.revoke(ctx.caller.token.id))) throw new DomainError('AUTH_REJECTED')
  return ctx.ok({ revoked: 1 }, { outcome: 'TOKEN_DELETED' })
}

export default handler
