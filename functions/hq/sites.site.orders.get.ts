// GET /api/hq/sites/:site/orders: a site's open orders, read-only (HQ never changes a site).
import { HqError, parseSiteId } from '../../lib/hq/errors.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/sites/:site/orders',
  auth: 'bearer',
  code: 4,
  summary: "A site's open orders, oldest first: number, type, state, table, created, elapsed seconds, late (waiting longer than the target)",
  errors: ['SITE_INVALID', 'SITE_NOT_FOUND'],
}

const handler: HqFunction = async (_request, ctx) => {
  const siteId = parseSiteId(ctx.params.site)
  const [site, orders] = await Promise.all([ctx.services.sites.get(siteId), ctx.services.sites.orders(siteId)])
  if (!site) throw new HqError('SITE_NOT_FOUND')
  return ctx.ok({ siteId, orders })
}
export default handler
