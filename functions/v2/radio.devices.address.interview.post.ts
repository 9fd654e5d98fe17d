import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { InterviewResult } from '../../lib/radio/upkeep-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/radio/devices/:address/interview',
  auth: 'bearer',
  scope: 'admin',
  code: 24,
  summary: 'Interview a device again (it must be awake); the answer has its interview state and, when it failed, why',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'ROUTE_NOT_FOUND', 'RADIO_DEVICE_NOT_FOUND', 'RADIO_UNAVAILABLE', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = InterviewResult

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { device, error } = await ctx.services.radioUpkeep.interview(ctx.params.address ?? '')
  return ctx.ok({ device, error })
}

export default handler
