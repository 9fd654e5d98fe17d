// GET /api/hq/sites/:site: one site at a glance.
import { HqError, parseSiteId } from '../../lib/hq/errors.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/sites/:site',
  auth: 'bearer',
  code: 3,
  summary: 'One site: the same fields as in the list',
  errors: ['SITE_INVALID', 'SITE_NOT_FOUND'],
}

const handler: HqFunction = async (_request, ctx) => {
  const site = await ctx.services.sites.get(parseSiteId(ctx.params.site))
  if (!site) throw new HqError('SITE_NOT_FOUND')
  return ctx.ok({ site })
}
export default handler
