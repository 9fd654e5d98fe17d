import { orderRef } from '../../lib/api/value-parsers.ts'
import type { ActiveOrderV2, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/activeorders/:id/page',
  auth: 'bearer',
  scope: 'screen',
  code: 7,
  summary: 'Cancel paging at once (1002; the tracker may buzz a few seconds more), or 1003 when nothing is being paged',
  outcomes: ['PAGING_CANCELLED', 'NOTHING_TO_CANCEL'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ORDER_REF_INVALID', 'ORDER_NOT_FOUND', 'NO_TRACKER_TO_CANCEL'],
} as const satisfies FunctionConfig

const messages = {
  PAGING_CANCELLED: 'Paging cancelled',
  NOTHING_TO_CANCEL: 'The order has no paged tracker',
} as const

type Answer = { activeorder: ActiveOrderV2 }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { order, outcome } = await ctx.services.orders.cancelPage(orderRef(ctx.params.id))
  const result = outcome === 'NOTHING_TO_CANCEL' ? 'NOTHING_TO_CANCEL' : 'PAGING_CANCELLED'
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) }, { outcome: result, message: messages[result] })
}

export default handler
