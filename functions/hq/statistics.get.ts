// GET /api/hq/statistics?period=today|week[&site=ID]: time to table and orders per hour, for
// the chain (with a line per site) or one site.
import { HqError, parseSiteId } from '../../lib/hq/errors.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/statistics',
  auth: 'bearer',
  code: 5,
  summary:
    'Orders, time to table (average, late against the target) by hour and by day, for the chain (and per site) or one site, today or this week (from Monday)',
  query: {
    period: { description: 'today (default) or week', schema: { type: 'string', enum: ['today', 'week'] } },
    site: { description: "One site's figures instead of the chain's", schema: { type: 'string' } },
  },
  errors: ['PERIOD_INVALID', 'SITE_INVALID'],
}

const handler: HqFunction = async (_request, ctx) => {
  const period = ctx.query.get('period') ?? 'today'
  if (period !== 'today' && period !== 'week') throw new HqError('PERIOD_INVALID')
  const site = ctx.query.has('site') ? parseSiteId(ctx.query.get('site')) : null
  return ctx.ok({ statistics: await ctx.services.statistics(period, site) })
}
export default handler
