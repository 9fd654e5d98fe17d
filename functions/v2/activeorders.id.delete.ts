import { orderRef } from '../../lib/api/value-parsers.ts'
import type { ActiveOrderV2, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/activeorders/:id',
  auth: 'bearer',
  scope: 'screen',
  code: 6,
  summary: 'Clear one active order by number or UUID: it moves to the history and its paging stops',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ORDER_REF_INVALID', 'ORDER_NOT_FOUND'],
} as const satisfies FunctionConfig

type Answer = { activeorder: ActiveOrderV2 }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const order = await ctx.services.orders.clear(orderRef(ctx.params.id))
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) })
}

export default handler
