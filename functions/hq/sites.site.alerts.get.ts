// GET /api/hq/sites/:site/alerts[?limit=][&format=csv]: a site's alert history, open and
// cleared, newest first (GET /api/hq/alerts lists the chain's open ones).
import { csvContentType, toCsv } from '../../lib/hq/csv.ts'
import { HqError, parseFormat, parseLimit, parseSiteId } from '../../lib/hq/errors.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/sites/:site/alerts',
  auth: 'bearer',
  code: 10,
  summary: "A site's alerts, open and cleared, newest first: kind, detail, raisedAt, clearedAt (null while open); format=csv: the same as CSV",
  query: {
    limit: { description: 'At most this many (1-10000, default 100)', schema: { type: 'integer', minimum: 1, maximum: 10000 } },
    format: { description: 'json (default: the envelope) or csv (text/csv)', schema: { type: 'string', enum: ['json', 'csv'] } },
  },
  errors: ['SITE_INVALID', 'SITE_NOT_FOUND', 'LIMIT_INVALID', 'FORMAT_INVALID'],
}

const handler: HqFunction = async (_request, ctx) => {
  const siteId = parseSiteId(ctx.params.site)
  const limit = parseLimit(ctx.query.get('limit'), 100)
  const format = parseFormat(ctx.query.get('format'))
  const [site, alerts] = await Promise.all([ctx.services.sites.get(siteId), ctx.services.sites.alerts(siteId, limit)])
  if (!site) throw new HqError('SITE_NOT_FOUND')
  if (format === 'csv')
    return ctx.text(
      toCsv(
        ['id', 'siteId', 'kind', 'detail', 'raisedAt', 'clearedAt'],
        alerts.map((alert) => ({ ...alert })),
      ),
      csvContentType,
    )
  return ctx.ok({ siteId, alerts })
}
export default handler
