import { issueTokenQuery } from '../../lib/api/token-input.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import type { FunctionConfig, GatewayFunction, IssuedTokenWire } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/accesstoken/generate',
  auth: 'button',
  code: 2,
  successStatus: 201,
  summary: 'Issue the first access token after a button press, of `scope` (default admin); the full token is shown only here',
  query: issueTokenQuery.params(),
  errors: ['BUTTON_WINDOW_CLOSED', 'TOKEN_NAME_INVALID', 'SCOPE_INVALID', 'TOKEN_LIMIT_REACHED'],
} as const satisfies FunctionConfig

type Answer = { token: IssuedTokenWire }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  // The window first: a closed window is 403/-3 whatever the name (docs/api.md, "Access tokens and security").
  if (!ctx.services.button.isOpen()) throw new DomainError('BUTTON_WINDOW_CLOSED')
  const { name, scope } = issueTokenQuery.parse(ctx.query)
  const issued = await ctx.services.tokens.issueWithButton(name, scope)
  return ctx.ok({ token: ctx.present.token(issued.record, issued.token) }, { status: 201, headers: { 'cache-control': 'no-store' } })
}

export default handler
