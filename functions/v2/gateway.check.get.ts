import { queryValue } from '../../lib/api/input.ts'
import { checkTimeout } from '../../lib/gateway/check.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/gateway/check',
  auth: 'bearer',
  code: 14,
  summary: 'Connection check: the radio answers within timeout seconds, storage is writable, the cloud link (when activated)',
  query: {
    timeout: { description: 'Seconds to wait for the radio, 0-254 (default 5)', schema: { type: 'integer', minimum: 0, maximum: 254, default: 5 } },
  },
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'CHECK_TIMEOUT_INVALID', 'CHECK_TIMEOUT_OUT_OF_RANGE', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const timeout = checkTimeout(queryValue(ctx.query, 'timeout', 'CHECK_TIMEOUT_INVALID'))
  return ctx.ok({ check: await ctx.services.check.run(timeout) })
}

export default handler
