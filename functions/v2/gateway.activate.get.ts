import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { CloudStatus } from '../../lib/gateway/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/gateway/activate',
  auth: 'bearer',
  scope: 'admin',
  code: 12,
  summary: 'Cloud activation state: NOT_CONFIGURED, ACTIVATED, CONNECTED or UNREACHABLE (an activated gateway probes the link)',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = CloudStatus

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ ...(await ctx.services.cloud.probe()) })

export default handler
