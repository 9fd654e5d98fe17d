import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/repeaters',
  auth: 'bearer',
  scope: 'admin',
  code: 15,
  summary: 'Clear the repeater inventory (repeaters still on the network are listed again when next heard from)',
  outcomes: ['REPEATERS_CLEARED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { removed: number }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) =>
  ctx.ok({ removed: await ctx.services.repeaters.clear() }, { outcome: 'REPEATERS_CLEARED' })

export default handler
