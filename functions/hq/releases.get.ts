// GET /api/hq/releases: the releases uploaded, newest first.
import { releaseSchema } from '../../lib/hq/rollout-docs.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/releases',
  auth: 'bearer',
  code: 12,
  summary: 'The releases uploaded, newest first: id, version, sha256, size, the key that signed it',
  response: { properties: { releases: { type: 'array', items: releaseSchema } } },
}

const handler: HqFunction = async (_request, ctx) => ctx.ok({ releases: await ctx.services.releases.list() })
export default handler
