import { orderRef } from '../../lib/api/value-parsers.ts'
import type { ActiveOrderV1, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v1/activeorders/:name',
  auth: 'none',
  scope: 'screen',
  summary: 'Clear an active order by number: it moves to the history and its paging stops',
  errors: ['ORDER_NAME_INVALID', 'ORDER_NOT_FOUND'],
} as const satisfies FunctionConfig

type Answer = { activeorder: ActiveOrderV1 }

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) => {
  const order = await ctx.services.orders.clear(orderRef(ctx.params.name, { allowUuid: false }))
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) })
}

export default handler
