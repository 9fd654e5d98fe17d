import { uuid } from '../../lib/api/value-parsers.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import type { ActiveOrderV2, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/orders/:uuid/recall',
  auth: 'bearer',
  scope: 'screen',
  code: 9,
  summary:
    'Recall a cleared order (ours): an active order again with its number, type and table, and its original start, so it is as late as it was; an order already active with that number is answered unchanged with 1009 or 1010',
  outcomes: ['ALREADY_STARTED', 'ALREADY_LOCATED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'UUID_INVALID', 'ORDER_NOT_FOUND'],
} as const satisfies FunctionConfig

type Answer = { activeorder: ActiveOrderV2 }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const cleared = ctx.services.history.get(uuid(ctx.params.uuid))
  if (!cleared) throw new DomainError('ORDER_NOT_FOUND')
  const { order, outcome } = await ctx.services.orders.create({
    name: cleared.name,
    orderType: cleared.orderType,
    ...(cleared.locationName === null ? {} : { locationName: cleared.locationName }),
    requireTracker: false,
    recalled: { started: cleared.orderStarted, located: cleared.orderLocated },
  })
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) }, { outcome })
}

export default handler
