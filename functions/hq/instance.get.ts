// GET /api/hq/instance: this instance's ingest (connected, pending, applied, rejected).
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/instance',
  auth: 'bearer',
  code: 7,
  summary: 'This instance: its id and its ingest (broker connected, subscriptions confirmed, messages pending, applied, rejected, last error)',
}

const handler: HqFunction = async (_request, ctx) => ctx.ok({ instanceId: ctx.services.instance.id, ingest: ctx.services.instance.ingest() })
export default handler
