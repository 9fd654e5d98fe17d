// GET /api/hq/statistics?period=today|week|month[&site=ID][&format=csv]: time to table and
// orders per hour, for the chain (with a line per site) or one site; as CSV, one line per figure.
import { csvContentType, statisticsCsv } from '../../lib/hq/csv.ts'
import { HqError, parseFormat, parseSiteId } from '../../lib/hq/errors.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/statistics',
  auth: 'bearer',
  code: 5,
  summary:
    'Orders, time to table (average, late against the target) by hour and by day, for the chain (and per site) or one site, today, this week (from Monday) or this month; format=csv: the same as CSV, one line per figure (total, each day, hour and site)',
  query: {
    period: { description: 'today (default), week or month', schema: { type: 'string', enum: ['today', 'week', 'month'] } },
    site: { description: "One site's figures instead of the chain's", schema: { type: 'string' } },
    format: { description: 'json (default: the envelope) or csv (text/csv)', schema: { type: 'string', enum: ['json', 'csv'] } },
  },
  errors: ['PERIOD_INVALID', 'SITE_INVALID', 'FORMAT_INVALID'],
}

const handler: HqFunction = async (_request, ctx) => {
  const period = ctx.query.get('period') ?? 'today'
  if (period !== 'today' && period !== 'week' && period !== 'month') throw new HqError('PERIOD_INVALID')
  const site = ctx.query.has('site') ? parseSiteId(ctx.query.get('site')) : null
  const format = parseFormat(ctx.query.get('format'))
  const statistics = await ctx.services.statistics(period, site)
  return format === 'csv' ? ctx.text(statisticsCsv(statistics), csvContentType) : ctx.ok({ statistics })
}
export default handler
