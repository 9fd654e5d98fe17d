import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { GatewayStatus } from '../../lib/gateway/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/gateway',
  auth: 'bearer',
  scope: 'read',
  code: 11,
  summary: 'Gateway status: host memory, uptime (s), CPU temperature (°C) and utilisation (%), timezone, radio EUI-64 and channel',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { gatewayStatus: GatewayStatus }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ gatewayStatus: await ctx.services.gateway.status() })

export default handler
