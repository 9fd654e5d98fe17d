import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/gateway/activate',
  auth: 'bearer',
  code: 12,
  summary: 'Activate the gateway with the cloud service using a device code NNN-NNNN-NNN',
  body: {
    type: 'object',
    required: ['deviceCode'],
    properties: { deviceCode: { type: 'string', pattern: '^[0-9]{3}-[0-9]{4}-[0-9]{3}$' } },
  },
  outcomes: ['ACTIVATED', 'ALREADY_ACTIVATED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'DEVICE_CODE_MALFORMED', 'DEVICE_CODE_MISSING', 'DEVICE_CODE_REFUSED', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const body = await ctx.body()
  const { alreadyActivated, status } = await ctx.services.cloud.activate(body.deviceCode)
  return ctx.ok({ ...status }, { outcome: alreadyActivated ? 'ALREADY_ACTIVATED' : 'ACTIVATED' })
}

export default handler
