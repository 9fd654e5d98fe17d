import { targetTimeDoc, targetTimeParam } from '../../lib/api/history-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { DailyStatistics } from '../../lib/history/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/statistics',
  auth: 'bearer',
  scope: 'read',
  code: 10,
  summary: "Today's figures (orders cleared today in the gateway's timezone, timed start to clear), inside `statistics`",
  query: targetTimeDoc,
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'TARGET_TIME_INVALID'],
} as const satisfies FunctionConfig

type Answer = { statistics: DailyStatistics }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const targetTime = targetTimeParam(ctx.query) ?? ctx.services.settings.get().targetTimeDefault
  const { now, timezone } = ctx.present
  const statistics = ctx.services.history.statistics({ now, timezone, targetTime })
  return ctx.ok({ statistics })
}

export default handler
