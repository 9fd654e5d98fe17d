// GET /api/hq/metrics: headquarters' figures in Prometheus' text format (docs/hq.md,
// "Watching the chain"), for a scraper holding an HQ token.
import { expositionContentType } from '../../lib/kernel/metrics-text.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/metrics',
  auth: 'bearer',
  code: 8,
  contentType: expositionContentType,
  summary:
    "Prometheus text format (not an envelope): per site last seen, online, radio, backlog, open and late orders, this instance's applied messages and lag; instance heartbeats; open alerts; ingest and replay counters",
}

const handler: HqFunction = async (_request, ctx) => ctx.text(await ctx.services.metrics.exposition(), expositionContentType)
export default handler
