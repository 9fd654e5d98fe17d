import { DomainError } from '../../lib/kernel/errors.ts'
import type { FunctionConfig, GatewayFunction, TokenWire } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/accesstoken',
  auth: 'bearer',
  scope: 'read',
  code: 1,
  summary: "The calling token's own record (name, prefix, creation_date, last_used, ip_address)",
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { token: TokenWire }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  // No caller token: the route was opened by security.openRoutes, so there is no "own" record.
  const record = ctx.caller.token && ctx.services.tokens.get(ctx.caller.token.id)
  if (!record) throw new DomainError('AUTH_REJECTED')
  return ctx.ok({ token: ctx.present.token(record) })
}

export default handler
