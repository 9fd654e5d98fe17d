// GET /api/hq/sites/:site/history?from=&to=[&limit=][&format=csv]: a site's cleared orders
// between two of its local days, newest first; as CSV for a spreadsheet.
import { csvContentType, toCsv } from '../../lib/hq/csv.ts'
import { HqError, parseDayRange, parseFormat, parseLimit, parseSiteId } from '../../lib/hq/errors.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/sites/:site/history',
  auth: 'bearer',
  code: 9,
  summary:
    "A site's cleared orders between two of its local days, newest first: number, type, table, started, located, cleared, seconds to table; format=csv: the same as CSV",
  query: {
    from: { description: 'First local day of the site (YYYY-MM-DD); default: 6 days before to', schema: { type: 'string', format: 'date' } },
    to: { description: 'Last local day (YYYY-MM-DD), included; default: today (UTC); at most 366 days after from', schema: { type: 'string', format: 'date' } },
    limit: { description: 'At most this many orders (1-10000, default 1000)', schema: { type: 'integer', minimum: 1, maximum: 10000 } },
    format: { description: 'json (default: the envelope) or csv (text/csv)', schema: { type: 'string', enum: ['json', 'csv'] } },
  },
  errors: ['SITE_INVALID', 'SITE_NOT_FOUND', 'DAY_INVALID', 'LIMIT_INVALID', 'FORMAT_INVALID'],
}

const handler: HqFunction = async (_request, ctx) => {
  const siteId = parseSiteId(ctx.params.site)
  const to = ctx.query.get('to') ?? new Date().toISOString().slice(0, 10)
  const from = ctx.query.get('from') ?? new Date(Date.parse(`${to}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10)
  const range = parseDayRange(from, to)
  const limit = parseLimit(ctx.query.get('limit'), 1000)
  const format = parseFormat(ctx.query.get('format'))
  const [site, orders] = await Promise.all([ctx.services.sites.get(siteId), ctx.services.sites.history(siteId, { ...range, limit })])
  if (!site) throw new HqError('SITE_NOT_FOUND')
  if (format === 'csv') {
    const columns = ['uuid', 'name', 'orderType', 'locationName', 'orderStarted', 'orderLocated', 'orderCleared', 'toTableSeconds', 'localDay', 'seq'] as const
    return ctx.text(
      toCsv(
        [...columns],
        orders.map((order) => ({ ...order })),
      ),
      csvContentType,
    )
  }
  return ctx.ok({ siteId, ...range, orders })
}
export default handler
