import { orderRef } from '../../lib/api/value-parsers.ts'
import { pageBody } from '../../lib/api/order-input.ts'
import type { ActiveOrderV1, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v1/activeorders/:name/page',
  auth: 'none',
  scope: 'screen',
  summary: 'Page the tracker of an active order (by number)',
  body: pageBody.schema(),
  errors: ['ORDER_NAME_INVALID', 'ORDER_NOT_FOUND', 'NO_TRACKER_TO_PAGE', 'TRACKING_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { activeorder: ActiveOrderV1 }

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) => {
  const ref = orderRef(ctx.params.name, { allowUuid: false })
  const order = await ctx.services.orders.page(ref, pageBody.parse(await ctx.body()).tracking)
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) })
}

export default handler
