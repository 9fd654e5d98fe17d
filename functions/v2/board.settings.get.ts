import { DomainError } from '../../lib/kernel/errors.ts'
import type { ScreenSettings } from '../../lib/settings/types.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/board/settings',
  auth: 'bearer',
  scope: 'read',
  code: 26,
  summary:
    "Extension (screen settings): the calling screen's own settings, kept by its token name, inside `screen` as {name, settings}; a key never set is absent",
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED'],
} as const satisfies FunctionConfig

type Answer = { screen: { name: string; settings: ScreenSettings } }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  // No caller token: the route was opened by security.openRoutes, so there is no "own" screen.
  const name = ctx.caller.token?.name
  if (name === undefined) throw new DomainError('AUTH_REJECTED')
  return ctx.ok({ screen: { name, settings: ctx.services.screenSettings.get(name) } })
}

export default handler
