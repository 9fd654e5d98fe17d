import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { RadioDevice } from '../../lib/radio/upkeep-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/radio/devices',
  auth: 'bearer',
  scope: 'admin',
  code: 24,
  summary: 'Every device in the Zigbee network with its interview state (failed first), role, model, last seen and link quality',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND', 'RADIO_UNAVAILABLE', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { count: number; failed: number; devices: RadioDevice[] }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const devices = await ctx.services.radioUpkeep.devices()
  return ctx.ok({ count: devices.length, failed: devices.filter((device) => device.interview === 'failed').length, devices })
}

export default handler
