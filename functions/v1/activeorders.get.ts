import { v1View } from '../../lib/orders/view.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/define.ts'

export const config = {
  method: 'GET',
  path: '/api/v1/activeorders',
  auth: 'none',
  summary: 'All active orders (count as a string, v1 fields: stateStarted, paged "Yes"/"No", elapsedTime)',
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const items = ctx.services.orders.list().map(v1View(ctx.services))
  return ctx.ok({ count: String(items.length), items })
}

export default handler
