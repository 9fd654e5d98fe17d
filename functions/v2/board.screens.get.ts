import type { ScreenSettings } from '../../lib/settings/types.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/board/screens',
  auth: 'bearer',
  scope: 'admin',
  code: 26,
  summary:
    'Extension (screen settings): every named screen (each token name, and any name with settings kept) with its settings, inside `screens` as a list of {name, settings}',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED'],
} as const satisfies FunctionConfig

type Answer = { screens: { name: string; settings: ScreenSettings }[] }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const kept = ctx.services.screenSettings.list()
  const names = new Set([...ctx.services.tokens.list().map((record) => record.name), ...kept.map((screen) => screen.name)])
  const screens = [...names].sort((a, b) => a.localeCompare(b)).map((name) => ({ name, settings: ctx.services.screenSettings.get(name) }))
  return ctx.ok({ screens })
}

export default handler
