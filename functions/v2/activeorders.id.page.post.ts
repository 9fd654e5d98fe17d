import { orderRef } from '../../lib/api/value-parsers.ts'
import { pageBody } from '../../lib/api/order-input.ts'
import type { ActiveOrderV2, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/activeorders/:id/page',
  auth: 'bearer',
  scope: 'screen',
  code: 7,
  summary: 'Page the tracker bound to an active order (continuously with tracking, the default; once for about 60 s with tracking false)',
  body: pageBody.schema(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ORDER_REF_INVALID', 'ORDER_NOT_FOUND', 'NO_TRACKER_TO_PAGE', 'TRACKING_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { activeorder: ActiveOrderV2 }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const ref = orderRef(ctx.params.id)
  const order = await ctx.services.orders.page(ref, pageBody.parse(await ctx.body()).tracking)
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) })
}

export default handler
