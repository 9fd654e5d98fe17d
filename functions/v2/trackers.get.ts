import { trackerView } from '../../lib/gateway/trackers-view.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/define.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/trackers',
  auth: 'bearer',
  code: 18,
  summary: 'The trackers the gateway knows: number, address, battery and link quality where known, lastSeen, availability, bound order',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const zone = ctx.services.settings.timezone
  const now = ctx.services.clock.now()
  const trackers = ctx.services.trackers.list().map((record) => trackerView(record, zone, now))
  return ctx.ok({ count: trackers.length, trackers })
}

export default handler
