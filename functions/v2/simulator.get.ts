import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { SimulatorStatus } from '../../lib/orders/simulator-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/simulator',
  auth: 'bearer',
  scope: 'read',
  code: 21,
  summary:
    'Extension (simulator): the virtual restaurant: trackers (number, address, position, buzzing, bound order), tables, starters, clearers. 404/-5 when the radio is not simulated',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND'],
} as const satisfies FunctionConfig

type Answer = { simulator: SimulatorStatus }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ simulator: ctx.services.simulator.status() })

export default handler
