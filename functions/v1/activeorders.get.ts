import type { FunctionConfig, GatewayFunction, RawJson } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v1/activeorders',
  auth: 'none',
  scope: 'read',
  summary: 'All active orders (count as a string, v1 fields: stateStarted, paged "Yes"/"No", elapsedTime)',
} as const satisfies FunctionConfig

type Answer = { count: string; items: RawJson }

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) => {
  const { count, items } = ctx.services.activeList.presented('v1')
  return ctx.ok({ count: String(count), items })
}

export default handler
