import { registerBody } from '../../lib/api/register-input.ts'
import { webhookOwner } from '../../lib/api/webhook-owner.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/register',
  auth: 'bearer',
  scope: 'pos',
  code: 19,
  summary:
    "Register a callback URL notified (signed POST) on every active-order change; the signing secret is in this answer only; idempotent. Registered with a pos token, it is that token's own (it lists and removes only its own)",
  body: registerBody.schema(),
  outcomes: ['CLIENT_REGISTERED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'CALLBACK_MISSING', 'CALLBACK_INVALID', 'CALLBACK_UNREACHABLE', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { webhook: { url: string; secret?: string } }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { http_client: callback } = registerBody.parse(await ctx.body())
  const { url, secret, created } = await ctx.services.webhooks.register(callback, 'v2', { owner: webhookOwner(ctx.caller.token) })
  return ctx.ok(
    { webhook: secret ? { url, secret } : { url } },
    {
      outcome: 'CLIENT_REGISTERED',
      message: created ? 'Callback URL registered' : 'Callback URL already registered (its secret was shown when it was first registered)',
      headers: { 'cache-control': 'no-store' },
    },
  )
}

export default handler
