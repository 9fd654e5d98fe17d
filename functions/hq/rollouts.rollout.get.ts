// GET /api/hq/rollouts/:rollout: one rollout and where each of its sites is.
import { HqError } from '../../lib/hq/errors.ts'
import { rolloutSchema } from '../../lib/hq/rollout-docs.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'
import { rolloutId } from './_rollout-id.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/rollouts/:rollout',
  auth: 'bearer',
  code: 16,
  summary: 'One rollout: its state (running, paused, halted and why, cancelled, done), its waves and each site with its rollout state',
  errors: ['ROLLOUT_NOT_FOUND'],
  response: { properties: { rollout: rolloutSchema } },
}

const handler: HqFunction = async (_request, ctx) => {
  const rollout = await ctx.services.rollouts.get(rolloutId(ctx.params.rollout))
  if (!rollout) throw new HqError('ROLLOUT_NOT_FOUND')
  return ctx.ok({ rollout })
}
export default handler
