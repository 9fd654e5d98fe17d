import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2',
  auth: 'none',
  code: 20,
  summary: 'Service description; kitchen displays poll it as a liveness probe',
} as const satisfies FunctionConfig

type Answer = { name: string; apiVersion: 'v2'; deviceId: string }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) =>
  ctx.ok({ name: 'Tracker Gateway', apiVersion: 'v2', deviceId: ctx.services.identity.deviceId })

export default handler
