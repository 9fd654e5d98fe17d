import { targetTimeDoc, targetTimeParam } from '../../lib/api/history-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/define.ts'

export const config = {
  method: 'GET',
  path: '/api/v1/statistics',
  auth: 'none',
  summary: "Today's figures (orders cleared today in the gateway's timezone, timed start to clear), flat",
  query: targetTimeDoc,
  errors: ['TARGET_TIME_INVALID'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const { clock, settings, history } = ctx.services
  const targetTime = targetTimeParam(ctx.query) ?? settings.get().targetTimeDefault
  const statistics = history.statistics({ now: clock.now(), timezone: settings.timezone, targetTime })
  return ctx.ok({ ...statistics })
}

export default handler
