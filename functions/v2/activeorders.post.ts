import { createBody } from '../../lib/api/order-input.ts'
import type { ActiveOrderV2, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/activeorders',
  auth: 'bearer',
  scope: 'screen',
  code: 5,
  summary: 'Start an active order; for an order already active, apply orderType/locationName and answer 1009 (was started) or 1010 (was located)',
  body: createBody.v2.schema(),
  outcomes: ['ALREADY_STARTED', 'ALREADY_LOCATED'],
  errors: [
    'AUTH_MALFORMED',
    'AUTH_REJECTED',
    'ORDER_NAME_MISSING',
    'ORDER_NAME_INVALID',
    'LOCATION_INVALID',
    'ORDER_TYPE_MISSING',
    'ORDER_TYPE_INVALID',
    'JSON_INVALID',
  ],
} as const satisfies FunctionConfig

type Answer = { activeorder: ActiveOrderV2 }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const fields = createBody.v2.parse(await ctx.body())
  const { order, outcome } = await ctx.services.orders.create({ ...fields, requireTracker: false })
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) }, { outcome })
}

export default handler
