import { simStartBody } from '../../lib/api/sim-input.ts'
import type { ActiveOrderV2, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { SimTrackerView } from '../../lib/orders/simulator-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/simulator/start',
  auth: 'bearer',
  scope: 'screen',
  code: 21,
  summary: 'Extension (simulator): hold a tracker over the dine-in starter (or the to-go one with toGo true); answers with the order it started',
  body: simStartBody.schema(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND', 'SIM_INPUT_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { tracker: SimTrackerView; activeorder: ActiveOrderV2 | null }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const body = simStartBody.parse(await ctx.body())
  const { tracker, order } = await ctx.services.simulator.start(body.tracker, { toGo: body.toGo })
  return ctx.ok({ tracker, activeorder: order && ctx.present.activeOrder(order) })
}

export default handler
