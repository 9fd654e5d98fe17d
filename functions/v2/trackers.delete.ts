import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/trackers',
  auth: 'bearer',
  scope: 'admin',
  code: 18,
  summary: 'Forget every tracker not bound to an active order',
  outcomes: ['TRACKERS_CLEARED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { removed: number }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) =>
  ctx.ok({ removed: await ctx.services.trackers.clearUnbound() }, { outcome: 'TRACKERS_CLEARED' })

export default handler
