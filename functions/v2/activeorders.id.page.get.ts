import { orderRef } from '../../lib/api/value-parsers.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/activeorders/:id/page',
  auth: 'bearer',
  scope: 'read',
  code: 7,
  summary: 'Whether an active order is being paged',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ORDER_REF_INVALID', 'ORDER_NOT_FOUND'],
} as const satisfies FunctionConfig

type Answer = { paged: boolean }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok(ctx.services.orders.pagingStatus(orderRef(ctx.params.id)))

export default handler
