import type { FunctionConfig, GatewayFunction, TokenWire } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/accesstoken/all',
  auth: 'bearer',
  scope: 'admin',
  code: 3,
  summary: 'Every access token record, oldest first (prefixes only, never a token)',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { count: number; tokens: TokenWire[] }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const tokens = ctx.services.tokens.list().map((record) => ctx.present.token(record))
  return ctx.ok({ count: tokens.length, tokens })
}

export default handler
