// GET /api/hq: liveness of this HQ instance (open, like GET /api/v2 on a gateway).
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq',
  auth: 'none',
  code: 1,
  summary: 'This HQ instance answers (no token needed): its instance id',
}

const handler: HqFunction = async (_request, ctx) => ctx.ok({ service: 'tracker-gateway-hq', instanceId: ctx.services.instance.id })
export default handler
