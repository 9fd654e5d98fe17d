import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v1',
  auth: 'none',
  summary: 'Service description',
} as const satisfies FunctionConfig

type Answer = { name: string; apiVersion: 'v1'; deviceId: string }

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) =>
  ctx.ok({ name: 'Tracker Gateway', apiVersion: 'v1', deviceId: ctx.services.identity.deviceId })

export default handler
