import { simTracker, simTrackerSchema } from '../../lib/api/sim-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/simulator/clear',
  auth: 'bearer',
  code: 21,
  summary: 'Extension (simulator): hold a tracker over the clearer; its order is cleared into the history',
  body: { type: 'object', required: ['tracker'], properties: { tracker: simTrackerSchema } },
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND', 'SIM_INPUT_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const { tracker } = await ctx.services.simulator.clear(simTracker(await ctx.body()))
  return ctx.ok({ tracker })
}

export default handler
