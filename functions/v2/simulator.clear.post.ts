import { simClearBody } from '../../lib/api/sim-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { SimTrackerView } from '../../lib/orders/simulator-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/simulator/clear',
  auth: 'bearer',
  scope: 'screen',
  code: 21,
  summary: 'Extension (simulator): hold a tracker over the clearer; its order is cleared into the history',
  body: simClearBody.schema(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND', 'SIM_INPUT_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { tracker: SimTrackerView }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { tracker } = await ctx.services.simulator.clear(simClearBody.parse(await ctx.body()).tracker)
  return ctx.ok({ tracker })
}

export default handler
