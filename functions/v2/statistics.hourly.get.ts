import { hourlyQuery } from '../../lib/api/history-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { HourlyStatistics } from '../../lib/history/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/statistics/hourly',
  auth: 'bearer',
  scope: 'read',
  code: 10,
  summary:
    "Extension (charts): per hour of the day in the gateway's timezone, orders cleared with the median and 90th percentile start-to-clear time and how many were over target, for today or the last 7 days, inside `hourly`",
  query: hourlyQuery.params(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'TARGET_TIME_INVALID', 'DATE_INVALID'],
} as const satisfies FunctionConfig

type Answer = { hourly: HourlyStatistics }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { settings, history } = ctx.services
  const input = hourlyQuery.parse(ctx.query)
  const range = input.range
  const targetTime = input.target_time ?? settings.get().targetTimeDefault
  return ctx.ok({ hourly: history.hourly({ now: ctx.present.now, timezone: ctx.present.timezone, targetTime, range }) })
}

export default handler
