import { checkQuery } from '../../lib/api/gateway-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { CheckReport } from '../../lib/gateway/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/gateway/check',
  auth: 'bearer',
  scope: 'admin',
  code: 14,
  summary: 'Connection check: the radio answers within timeout seconds, storage is writable, the cloud link (when activated)',
  query: checkQuery.params(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'CHECK_TIMEOUT_INVALID', 'CHECK_TIMEOUT_OUT_OF_RANGE', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { check: CheckReport }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { timeout } = checkQuery.parse(ctx.query)
  return ctx.ok({ check: await ctx.services.check.run(timeout) })
}

export default handler
