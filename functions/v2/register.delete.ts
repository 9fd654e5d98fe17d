import { unregisterQuery } from '../../lib/api/register-input.ts'
import { webhookOwner } from '../../lib/api/webhook-owner.ts'
import type { FunctionConfig, GatewayFunction, NoFields } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/register',
  auth: 'bearer',
  scope: 'pos',
  code: 19,
  summary:
    'Remove a registered callback URL and its undelivered backlog; http_client in the query (absent or empty -28; a request body is not read); a pos token removes only those it registered (another is -30)',
  query: unregisterQuery.params(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'CALLBACK_MISSING', 'CALLBACK_INVALID', 'CALLBACK_NOT_REGISTERED'],
} as const satisfies FunctionConfig

type Answer = NoFields

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const url = unregisterQuery.parse(ctx.query).http_client
  await ctx.services.webhooks.unregister(url, webhookOwner(ctx.caller.token))
  return ctx.ok({}, { message: 'Callback URL removed' })
}

export default handler
