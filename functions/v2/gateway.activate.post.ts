import { activateBody } from '../../lib/api/gateway-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { CloudStatus } from '../../lib/gateway/types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/gateway/activate',
  auth: 'bearer',
  scope: 'admin',
  code: 12,
  summary: 'Activate the gateway with the cloud service using a device code NNN-NNNN-NNN',
  body: activateBody.schema(),
  outcomes: ['ACTIVATED', 'ALREADY_ACTIVATED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'DEVICE_CODE_MALFORMED', 'DEVICE_CODE_MISSING', 'DEVICE_CODE_REFUSED', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = CloudStatus

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { deviceCode } = activateBody.parse(await ctx.body())
  const { alreadyActivated, status } = await ctx.services.cloud.activate(deviceCode)
  return ctx.ok({ ...status }, { outcome: alreadyActivated ? 'ALREADY_ACTIVATED' : 'ACTIVATED' })
}

export default handler
