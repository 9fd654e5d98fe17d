// POST /api/hq/rollouts: starts rolling a stored release out (issue 46; docs/hq.md "Rollouts").
import { HqError } from '../../lib/hq/errors.ts'
import { rolloutSchema } from '../../lib/hq/rollout-docs.ts'
import { RolloutActiveError, RolloutInputError } from '../../lib/hq/rollouts.ts'
import * as z from '../../lib/kernel/schema/index.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

const siteId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^/+#]+$/, 'a site id has no "/", "+" or "#"')
  .refine((value) => !value.includes(String.fromCharCode(0)), 'a site id has no NUL')

const bodySchema = z.strictObject({
  release: z.number().int().min(1),
  sites: z.array(siteId).min(1).max(100_000).optional(),
  canary: z.array(siteId).min(1).max(1000).optional(),
  canaryCount: z.number().int().min(1).max(1000).optional(),
  percentages: z.array(z.number().min(0.001).max(100)).max(20).optional(),
  soakMinutes: z.number().min(0).max(10_080).default(30),
  offline: z.enum(['catch-up', 'skip']).default('catch-up'),
})

export const config: FunctionConfig = {
  method: 'POST',
  path: '/api/hq/rollouts',
  auth: 'bearer',
  scope: 'admin',
  code: 14,
  successStatus: 201,
  summary:
    'Starts a rollout of a stored release: waves (canary sites or canaryCount, then cumulative percentages of the others, then the rest) with soakMinutes between them; offline sites catch up when back or are skipped',
  body: {
    type: 'object',
    required: ['release'],
    additionalProperties: false,
    properties: {
      release: { type: 'integer', description: 'A release id (POST /api/hq/releases)' },
      sites: { type: 'array', items: { type: 'string' }, description: 'The sites to upgrade (default: every site HQ knows)' },
      canary: { type: 'array', items: { type: 'string' }, description: 'The first wave, by site id' },
      canaryCount: { type: 'integer', minimum: 1, description: 'Or: the first so many sites (by id) make the first wave (default 1)' },
      percentages: {
        type: 'array',
        items: { type: 'number' },
        description: 'Cumulative percentages of the other sites, one wave each; the rest is the last wave',
      },
      soakMinutes: { type: 'number', minimum: 0, description: 'Time between a wave done and the next one (default 30)' },
      offline: {
        enum: ['catch-up', 'skip'],
        description: 'A site offline when its wave starts: told anyway (it upgrades when back) or skipped (default catch-up)',
      },
    },
  },
  errors: ['SCOPE_INSUFFICIENT', 'ROLLOUT_INVALID', 'ROLLOUT_ACTIVE'],
  response: { properties: { rollout: rolloutSchema } },
}

const handler: HqFunction = async (_request, ctx) => {
  const bytes = await ctx.body(64 * 1024)
  let parsed: z.infer<typeof bodySchema>
  try {
    const result = bodySchema.safeParse(JSON.parse(bytes?.toString('utf8') ?? ''))
    if (!result.success) {
      const issue = result.error.issues[0]!
      throw new HqError('ROLLOUT_INVALID', `the rollout is not valid: "${issue.path.join('.')}" ${issue.message}`)
    }
    parsed = result.data
  } catch (error) {
    if (error instanceof HqError) throw error
    throw new HqError('ROLLOUT_INVALID', 'the rollout is not valid: the body must be JSON (at most 64 KiB)')
  }
  try {
    const rollout = await ctx.services.rollouts.start({
      releaseId: parsed.release,
      sites: parsed.sites,
      canary: parsed.canary,
      canaryCount: parsed.canaryCount,
      percentages: parsed.percentages,
      soakSeconds: Math.round(parsed.soakMinutes * 60),
      offline: parsed.offline,
      startedBy: ctx.caller.token?.name ?? 'unknown',
    })
    return ctx.ok({ rollout })
  } catch (error) {
    if (error instanceof RolloutInputError) throw new HqError('ROLLOUT_INVALID', `the rollout is not valid: ${error.message}`)
    if (error instanceof RolloutActiveError) throw new HqError('ROLLOUT_ACTIVE')
    throw error
  }
}
export default handler
