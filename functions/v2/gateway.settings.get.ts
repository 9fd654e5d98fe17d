import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { Settings } from '../../lib/settings/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/gateway/settings',
  auth: 'bearer',
  scope: 'admin',
  code: 13,
  summary: 'The gateway settings: zigbeePreset, targetTimeDefault (s) and timezone',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { settings: Settings }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ settings: ctx.services.settings.get() })

export default handler
