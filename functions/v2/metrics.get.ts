// GET /api/v2/metrics: the gateway's figures in Prometheus' text format (docs/api.md,
// "Metrics"), for a scraper holding a token of scope read.
import { expositionContentType } from '../../lib/kernel/metrics-text.ts'
import type { FunctionConfig, GatewayFunction, NoFields } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/metrics',
  auth: 'bearer',
  scope: 'read',
  code: 26,
  contentType: expositionContentType,
  summary:
    'Extension: Prometheus text format (not an envelope): orders active and late, requests by route and status, WebSocket clients, webhook deliveries and backlog, radio, backups, clock, fleet bridge',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED'],
} as const satisfies FunctionConfig

// Not an envelope: the answer is ctx.text's, so there are no envelope fields to type.
const handler: GatewayFunction<NoFields, 'v2'> = async (_request, ctx) => ctx.text(await ctx.services.metrics.exposition(), expositionContentType)

export default handler
