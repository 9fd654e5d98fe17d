// The :rollout path parameter (a rollout id), shared by the rollout routes.
import { HqError } from '../../lib/hq/errors.ts'
import { RolloutTransitionError, type Operator } from '../../lib/hq/rollout-machine.ts'
import type { HqContext } from '../../runtime/hq/function-types.ts'

export function rolloutId(value: string | undefined): number {
  if (!value || !/^\d{1,15}$/.test(value)) throw new HqError('ROLLOUT_NOT_FOUND')
  return Number(value)
}

/** Pause, resume or cancel the rollout of the path; its view after. */
export async function operated(ctx: HqContext, action: Operator): Promise<Response> {
  try {
    const rollout = await ctx.services.rollouts.operate(rolloutId(ctx.params.rollout), action)
    if (!rollout) throw new HqError('ROLLOUT_NOT_FOUND')
    return ctx.ok({ rollout })
  } catch (error) {
    if (error instanceof RolloutTransitionError) throw new HqError('ROLLOUT_TRANSITION', error.message)
    if ((error as { code?: string }).code === '23505') throw new HqError('ROLLOUT_ACTIVE')
    throw error
  }
}
