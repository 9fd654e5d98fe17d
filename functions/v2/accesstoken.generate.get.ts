import { queryValue } from '../../lib/api/input.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import { tokenName } from '../../lib/tokens/names.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/accesstoken/generate',
  auth: 'button',
  code: 2,
  successStatus: 201,
  summary: 'Issue the first access token after a button press (the full token is shown only here)',
  query: {
    name: {
      description: 'Token name: 1-64 letters, digits, hyphens or underscores (default "default")',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', default: 'default' },
    },
  },
  errors: ['BUTTON_WINDOW_CLOSED', 'TOKEN_NAME_INVALID'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  // The window first (decisions: a closed window is 403/-3 whatever the name).
  if (!ctx.services.button.isOpen()) throw new DomainError('BUTTON_WINDOW_CLOSED')
  const name = tokenName(queryValue(ctx.query, 'name', 'TOKEN_NAME_INVALID'))
  const issued = await ctx.services.tokens.issueWithButton(name)
  return ctx.ok(
    { token: ctx.present.token(issued.record, issued.token) },
    { status: 201, headers: { 'cache-control': 'no-store' } },
  )
}

export default handler
