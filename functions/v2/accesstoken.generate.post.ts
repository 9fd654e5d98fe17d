import { issueTokenQuery } from '../../lib/api/token-input.ts'
import { assertWithin } from '../../lib/tokens/scopes.ts'
import type { FunctionConfig, GatewayFunction, IssuedTokenWire } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/accesstoken/generate',
  auth: 'bearer',
  scope: 'admin',
  code: 2,
  successStatus: 201,
  summary:
    'Mint another access token with an existing one, of `scope` (default admin; never wider than the calling token: 403/-51); the full token is shown only here',
  query: issueTokenQuery.params(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'TOKEN_NAME_INVALID', 'SCOPE_INVALID', 'SCOPE_DENIED', 'JSON_INVALID', 'RATE_LIMITED', 'TOKEN_LIMIT_REACHED'],
} as const satisfies FunctionConfig

type Answer = { token: IssuedTokenWire }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  await ctx.body() // a body, when sent, must be JSON (400/-31, nothing created)
  const { name, scope } = issueTokenQuery.parse(ctx.query)
  // The route needs admin, so this holds today; it keeps holding if the route is ever opened wider.
  if (ctx.caller.token) assertWithin(ctx.caller.token.scope, scope)
  const issued = await ctx.services.tokens.issue(name, scope)
  return ctx.ok({ token: ctx.present.token(issued.record, issued.token) }, { status: 201, headers: { 'cache-control': 'no-store' } })
}

export default handler
