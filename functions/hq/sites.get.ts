// GET /api/hq/sites: every site at a glance (the chain board's grid).
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/sites',
  auth: 'bearer',
  code: 2,
  summary:
    "Every site: connection (online, offline, silent, unknown), radio up or down, last seen, backlog, active orders, late now, today's time to table against the target",
}

const handler: HqFunction = async (_request, ctx) => ctx.ok({ sites: await ctx.services.sites.list() })
export default handler
