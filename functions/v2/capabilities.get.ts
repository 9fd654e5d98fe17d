import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { Capabilities } from '../../lib/api/wire-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/capabilities',
  auth: 'none',
  code: 4,
  summary: 'API versions, radio kind, optional features and limits of this gateway',
} as const satisfies FunctionConfig

type Answer = { capabilities: Capabilities }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ capabilities: ctx.services.capabilities })

export default handler
