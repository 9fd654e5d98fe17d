import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { NetworkMap } from '../../lib/radio/upkeep-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/radio/map',
  auth: 'bearer',
  scope: 'admin',
  code: 24,
  summary: "The network map: every device, and each router's neighbours with link quality (0-255); routers that did not answer are listed",
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND', 'RADIO_UNAVAILABLE', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { map: NetworkMap }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ map: await ctx.services.radioUpkeep.networkMap() })

export default handler
