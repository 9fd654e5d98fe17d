// GET /api/hq/alerts: the alerts that hold now (site offline too long, radio down, backlog
// growing, changes lost that the site could no longer replay).
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/alerts',
  auth: 'bearer',
  code: 6,
  summary: 'Open alerts, oldest first: site, kind (offline, radio, backlog, lost; instance: an HQ instance stopped acknowledging), detail, raisedAt',
}

const handler: HqFunction = async (_request, ctx) => ctx.ok({ alerts: await ctx.services.alerts() })
export default handler
