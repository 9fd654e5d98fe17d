import type { FunctionConfig, GatewayFunction, RawJson } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/activeorders',
  auth: 'bearer',
  scope: 'read',
  code: 5,
  summary: 'All active orders; count is an integer equal to items.length',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED'],
} as const satisfies FunctionConfig

type Answer = { count: number; items: RawJson }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { count, items } = ctx.services.activeList.presented('v2')
  return ctx.ok({ count, items })
}

export default handler
