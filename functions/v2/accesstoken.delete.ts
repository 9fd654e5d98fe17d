import { queryValue } from '../../lib/api/input.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import { tokenName } from '../../lib/tokens/names.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/accesstoken',
  auth: 'bearer',
  code: 1,
  summary: "Revoke the calling token, or with ?name= every token of that name; effective at once",
  query: {
    name: {
      description: 'Name of the token(s) to revoke; absent: the calling token',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    },
  },
  outcomes: ['TOKEN_DELETED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'TOKEN_NAME_INVALID', 'TOKEN_NOT_FOUND', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const named = queryValue(ctx.query, 'name', 'TOKEN_NAME_INVALID')
  if (named !== undefined) {
    const revoked = await ctx.services.tokens.revokeByName(tokenName(named))
    return ctx.ok({ revoked }, { outcome: 'TOKEN_DELETED' })
  }
  if (!ctx.caller.token || !(await ctx.services.tokens.revoke(ctx.caller.token.id))) throw new DomainError('AUTH_REJECTED')
  return ctx.ok({ revoked: 1 }, { outcome: 'TOKEN_DELETED' })
}

export default handler
