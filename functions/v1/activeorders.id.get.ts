import { orderRef } from '../../lib/api/value-parsers.ts'
import type { ActiveOrderV1, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v1/activeorders/:id',
  auth: 'none',
  scope: 'read',
  summary: 'One active order by number or UUID',
  errors: ['ORDER_REF_INVALID', 'ORDER_NOT_FOUND'],
} as const satisfies FunctionConfig

type Answer = { activeorder: ActiveOrderV1 }

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) => {
  const order = ctx.services.orders.get(orderRef(ctx.params.id))
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) })
}

export default handler
