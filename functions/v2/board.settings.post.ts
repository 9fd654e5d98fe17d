import { bodySchemaOf } from '../../lib/api/input-schema.ts'
import { screenSettingsWriteQuery } from '../../lib/api/screen-settings-input.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import { screenSettingsSchema } from '../../lib/settings/screen-settings.ts'
import type { ScreenSettings } from '../../lib/settings/types.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/board/settings',
  auth: 'bearer',
  scope: 'screen',
  code: 26,
  summary:
    "Extension (screen settings): changes the calling screen's own settings (the keys given; the others stay; with ?only=missing only the keys not set yet), all or nothing: an unknown key is -20, a bad value -21; answers them all inside `screen`",
  query: screenSettingsWriteQuery.params(),
  body: bodySchemaOf(screenSettingsSchema),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'SETTINGS_KEY_UNKNOWN', 'SETTINGS_VALUE_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { screen: { name: string; settings: ScreenSettings } }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const name = ctx.caller.token?.name
  if (name === undefined) throw new DomainError('AUTH_REJECTED')
  const { only } = screenSettingsWriteQuery.parse(ctx.query)
  const settings = await ctx.services.screenSettings.update(name, await ctx.body(), { onlyMissing: only === 'missing' })
  return ctx.ok({ screen: { name, settings } })
}

export default handler
