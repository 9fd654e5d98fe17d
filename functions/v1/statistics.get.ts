import { targetTimeDoc, targetTimeParam } from '../../lib/api/history-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { DailyStatistics } from '../../lib/history/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v1/statistics',
  auth: 'none',
  scope: 'read',
  summary: "Today's figures (orders cleared today in the gateway's timezone, timed start to clear), flat",
  query: targetTimeDoc,
  errors: ['TARGET_TIME_INVALID'],
} as const satisfies FunctionConfig

type Answer = DailyStatistics

const handler: GatewayFunction<Answer, 'v1'> = async (_request, ctx) => {
  const targetTime = targetTimeParam(ctx.query) ?? ctx.services.settings.get().targetTimeDefault
  const { now, timezone } = ctx.present
  const statistics = ctx.services.history.statistics({ now, timezone, targetTime })
  return ctx.ok({ ...statistics })
}

export default handler
