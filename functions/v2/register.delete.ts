import { queryValue } from '../../lib/api/input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/register',
  auth: 'bearer',
  code: 19,
  summary: 'Remove a registered callback URL and its undelivered backlog; http_client in the query or in the JSON body (one of them; the query wins when both are given, neither is -28)',
  query: {
    http_client: {
      description: 'The registered callback URL (or give it in the JSON body)',
      schema: { type: 'string', format: 'uri', maxLength: 256 },
    },
  },
  body: {
    type: 'object',
    properties: { http_client: { type: 'string', format: 'uri', maxLength: 2048 } },
  },
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'CALLBACK_MISSING', 'CALLBACK_INVALID', 'CALLBACK_NOT_REGISTERED', 'JSON_INVALID'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const fromQuery = queryValue(ctx.query, 'http_client', 'CALLBACK_INVALID')
  const url = fromQuery ?? (await ctx.body()).http_client
  await ctx.services.webhooks.unregister(url)
  return ctx.ok({}, { message: 'Callback URL removed' })
}

export default handler
