import { registerQuery } from '../../lib/api/register-input.ts'
import { checkV1Target } from '../../lib/api/v1-register.ts'
import { webhookOwner } from '../../lib/api/webhook-owner.ts'
import type { FunctionConfig, GatewayFunction, NoFields } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v1/register',
  auth: 'none',
  scope: 'pos',
  summary:
    "Register a callback URL notified (signed POST) on every active-order change; idempotent. Without credentials, only a URL on the caller's own IP address",
  query: registerQuery.params(),
  errors: ['CALLBACK_MISSING', 'CALLBACK_INVALID', 'CALLBACK_UNREACHABLE', 'CALLBACK_LIMIT_REACHED', 'SHARE_EXCEEDED'],
} as const satisfies FunctionConfig

type Answer = NoFields

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) => {
  const url = registerQuery.parse(ctx.query).http_client
  // Checked before the target is probed: a page's <img> makes the gateway send nothing anywhere.
  checkV1Target(url, ctx.caller)
  // Without credentials the caller's address gets a share of the places, one probe at a time.
  const token = ctx.caller.token
  const { created } = await ctx.services.webhooks.register(url, 'v1', { owner: webhookOwner(token), caller: token ? undefined : { ip: ctx.caller.ip } })
  return ctx.ok({}, { message: created ? 'Callback URL registered' : 'Callback URL already registered' })
}

export default handler
