import type { ActiveOrderV2, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/activeorders',
  auth: 'bearer',
  scope: 'pos',
  code: 5,
  summary: 'Clear every active order (each moves to the history; paging stops); count is an integer',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED'],
} as const satisfies FunctionConfig

type Answer = { count: number; items: ActiveOrderV2[] }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const items = (await ctx.services.orders.clearAll()).map(ctx.present.activeOrder)
  return ctx.ok({ count: items.length, items })
}

export default handler
