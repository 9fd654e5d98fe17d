import { uuid } from '../../lib/api/value-parsers.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import type { FunctionConfig, GatewayFunction, OrderSummaryWire } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v1/orders/:uuid',
  auth: 'none',
  scope: 'read',
  summary: 'One historical order by UUID (any case)',
  errors: ['UUID_INVALID', 'ORDER_NOT_FOUND'],
} as const satisfies FunctionConfig

type Answer = { order: OrderSummaryWire }

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) => {
  const summary = ctx.services.history.get(uuid(ctx.params.uuid))
  if (!summary) throw new DomainError('ORDER_NOT_FOUND')
  return ctx.ok({ order: ctx.present.orderSummary(summary) })
}

export default handler
