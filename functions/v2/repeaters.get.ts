import { booleanValue, queryValue } from '../../lib/api/input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/repeaters',
  auth: 'bearer',
  code: 15,
  summary: 'The repeater inventory; refresh=true pings every repeater through the radio first',
  query: {
    refresh: { description: 'true: ping the repeaters before listing (default false)', schema: { type: 'string', enum: ['true', 'false'] } },
  },
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'REFRESH_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const text = queryValue(ctx.query, 'refresh', 'REFRESH_INVALID')
  const refresh = text === undefined ? false : booleanValue(text, 'REFRESH_INVALID')
  const repeaters = refresh ? await ctx.services.repeaters.refresh() : ctx.services.repeaters.list()
  return ctx.ok({ count: repeaters.length, repeaters })
}

export default handler
