import { repeatersQuery } from '../../lib/api/gateway-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { RepeaterView } from '../../lib/inventory/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/repeaters',
  auth: 'bearer',
  scope: 'admin',
  code: 15,
  summary: 'The repeater inventory; refresh=true pings every repeater through the radio first',
  query: repeatersQuery.params(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'REFRESH_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { count: number; repeaters: RepeaterView[] }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { refresh } = repeatersQuery.parse(ctx.query)
  const repeaters = refresh ? await ctx.services.repeaters.refresh() : ctx.services.repeaters.list()
  return ctx.ok({ count: repeaters.length, repeaters })
}

export default handler
