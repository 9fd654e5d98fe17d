import { unregisterBody, unregisterQuery } from '../../lib/api/register-input.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/register',
  auth: 'bearer',
  code: 19,
  summary: 'Remove a registered callback URL and its undelivered backlog; http_client in the query or in the JSON body (one of them; the query wins when both are given, neither is -28)',
  query: unregisterQuery.params(),
  body: unregisterBody.schema(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'CALLBACK_MISSING', 'CALLBACK_INVALID', 'CALLBACK_NOT_REGISTERED', 'JSON_INVALID'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  // The body is read only when the query has no URL (a query URL wins over any body).
  const url = unregisterQuery.parse(ctx.query).http_client ?? unregisterBody.parse(await ctx.body()).http_client
  if (url === undefined) throw new DomainError('CALLBACK_MISSING')
  await ctx.services.webhooks.unregister(url)
  return ctx.ok({}, { message: 'Callback URL removed' })
}

export default handler
