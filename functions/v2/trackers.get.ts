import type { FunctionConfig, GatewayFunction, TrackerView } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/trackers',
  auth: 'bearer',
  scope: 'read',
  code: 18,
  summary: 'The trackers the gateway knows: number, address, battery and link quality where known, lastSeen, availability, bound order',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { count: number; trackers: TrackerView[] }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const trackers = ctx.services.trackers.list().map(ctx.present.tracker)
  return ctx.ok({ count: trackers.length, trackers })
}

export default handler
