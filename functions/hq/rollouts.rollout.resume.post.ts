// POST /api/hq/rollouts/:rollout/resume (lib/hq/rollout-machine.ts, operate).
import { rolloutSchema } from '../../lib/hq/rollout-docs.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'
import { operated } from './_rollout-id.ts'

export const config: FunctionConfig = {
  method: 'POST',
  path: '/api/hq/rollouts/:rollout/resume',
  auth: 'bearer',
  scope: 'admin',
  code: 18,
  summary: 'Resumes a paused or halted rollout: the failed sites and those stood down by the halt or the pause are told again (a new attempt)',
  errors: ['SCOPE_INSUFFICIENT', 'ROLLOUT_NOT_FOUND', 'ROLLOUT_TRANSITION'],
  response: { properties: { rollout: rolloutSchema } },
}

const handler: HqFunction = async (_request, ctx) => operated(ctx, 'resume')
export default handler
