import { queryValue } from '../../lib/api/input.ts'
import { tokenName } from '../../lib/tokens/names.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/accesstoken/generate',
  auth: 'bearer',
  code: 2,
  successStatus: 201,
  summary: 'Mint another access token with an existing one (the full token is shown only here)',
  query: {
    name: {
      description: 'Token name: 1-64 letters, digits, hyphens or underscores (default "default")',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', default: 'default' },
    },
  },
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'TOKEN_NAME_INVALID', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  await ctx.body() // a body, when sent, must be JSON (400/-31, nothing created)
  const name = tokenName(queryValue(ctx.query, 'name', 'TOKEN_NAME_INVALID'))
  const issued = await ctx.services.tokens.issue(name)
  return ctx.ok(
    { token: ctx.present.token(issued.record, issued.token) },
    { status: 201, headers: { 'cache-control': 'no-store' } },
  )
}

export default handler
