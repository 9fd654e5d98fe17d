// POST /api/hq/rollouts/:rollout/pause (lib/hq/rollout-machine.ts, operate).
import { rolloutSchema } from '../../lib/hq/rollout-docs.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'
import { operated } from './_rollout-id.ts'

export const config: FunctionConfig = {
  method: 'POST',
  path: '/api/hq/rollouts/:rollout/pause',
  auth: 'bearer',
  scope: 'admin',
  code: 17,
  summary: 'Pauses a running rollout: the sites told but not yet upgrading stand down and no wave starts; sites already upgrading finish',
  errors: ['SCOPE_INSUFFICIENT', 'ROLLOUT_NOT_FOUND', 'ROLLOUT_TRANSITION'],
  response: { properties: { rollout: rolloutSchema } },
}

const handler: HqFunction = async (_request, ctx) => operated(ctx, 'pause')
export default handler
