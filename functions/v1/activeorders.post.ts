import { createBody } from '../../lib/api/order-input.ts'
import type { ActiveOrderV1, FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v1/activeorders',
  auth: 'none',
  scope: 'screen',
  summary: 'Start an active order (or update and locate the active order of that number)',
  query: {
    dummy_tracker_address: {
      description:
        'Test aid: exactly "true" stands in a tracker address when no tracker with this number was ever started on a starter unit; any other value is ignored (as if absent). Never for production.',
      schema: { type: 'string' },
    },
  },
  body: createBody.v1.schema(),
  errors: ['TRACKER_UNKNOWN', 'ORDER_NAME_MISSING', 'ORDER_NAME_INVALID', 'ORDER_TYPE_INVALID', 'LOCATION_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { activeorder: ActiveOrderV1 }

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) => {
  const fields = createBody.v1.parse(await ctx.body())
  const dummyTracker = ctx.query.get('dummy_tracker_address') === 'true'
  const { order } = await ctx.services.orders.create({ ...fields, requireTracker: true, dummyTracker })
  return ctx.ok({ activeorder: ctx.present.activeOrder(order) })
}

export default handler
