// GET /api/hq/rollouts: the latest rollouts, newest first, each with its sites.
import { rolloutSchema } from '../../lib/hq/rollout-docs.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/rollouts',
  auth: 'bearer',
  code: 15,
  summary: 'The latest 50 rollouts, newest first: state, waves, and each site with its wave, rollout state and version',
  response: { properties: { rollouts: { type: 'array', items: rolloutSchema } } },
}

const handler: HqFunction = async (_request, ctx) => ctx.ok({ rollouts: await ctx.services.rollouts.list() })
export default handler
