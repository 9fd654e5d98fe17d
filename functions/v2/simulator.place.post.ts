import { simTable, simTracker, simTrackerSchema } from '../../lib/api/sim-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/simulator/place',
  auth: 'bearer',
  code: 21,
  summary: 'Extension (simulator): put a tracker on a table; it reports the table and its order becomes located',
  body: { type: 'object', required: ['tracker', 'table'], properties: { tracker: simTrackerSchema, table: { type: 'integer', minimum: 1 } } },
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND', 'SIM_INPUT_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const body = await ctx.body()
  const { tracker, order } = await ctx.services.simulator.place(simTracker(body), simTable(body))
  return ctx.ok({ tracker, activeorder: order && ctx.present.activeOrder(order) })
}

export default handler
