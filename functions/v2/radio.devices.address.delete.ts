import { removeDeviceQuery } from '../../lib/api/radio-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'DELETE',
  path: '/api/v2/radio/devices/:address',
  auth: 'bearer',
  scope: 'admin',
  code: 24,
  summary: 'Remove a device from the Zigbee network (ZDO Leave, then forgotten); force=true forgets one that does not answer (left: false)',
  query: removeDeviceQuery.params(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND', 'RADIO_DEVICE_NOT_FOUND', 'RADIO_UNAVAILABLE', 'FORCE_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { removed: string; left: boolean }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { force } = removeDeviceQuery.parse(ctx.query)
  const address = ctx.params.address ?? ''
  const { left } = await ctx.services.radioUpkeep.remove(address, force)
  return ctx.ok({ removed: address, left })
}

export default handler
