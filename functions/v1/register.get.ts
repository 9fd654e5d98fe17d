import { registerQuery } from '../../lib/api/register-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v1/register',
  auth: 'none',
  summary: 'Register a callback URL notified (signed POST) on every active-order change; idempotent',
  query: registerQuery.params(),
  errors: ['CALLBACK_MISSING', 'CALLBACK_INVALID', 'CALLBACK_UNREACHABLE'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const { created } = await ctx.services.webhooks.register(registerQuery.parse(ctx.query).http_client, 'v1')
  return ctx.ok({}, { message: created ? 'Callback URL registered' : 'Callback URL already registered' })
}

export default handler
