import { issueTokenQuery } from '../../lib/api/token-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/accesstoken/generate',
  auth: 'bearer',
  code: 2,
  successStatus: 201,
  summary: 'Mint another access token with an existing one (the full token is shown only here)',
  query: issueTokenQuery.params(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'TOKEN_NAME_INVALID', 'JSON_INVALID', 'RATE_LIMITED', 'TOKEN_LIMIT_REACHED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  await ctx.body() // a body, when sent, must be JSON (400/-31, nothing created)
  const { name } = issueTokenQuery.parse(ctx.query)
  const issued = await ctx.services.tokens.issue(name)
  return ctx.ok(
    { token: ctx.present.token(issued.record, issued.token) },
    { status: 201, headers: { 'cache-control': 'no-store' } },
  )
}

export default handler
