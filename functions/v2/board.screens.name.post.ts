import { bodySchemaOf } from '../../lib/api/input-schema.ts'
import { tokenName } from '../../lib/tokens/names.ts'
import { screenSettingsSchema } from '../../lib/settings/screen-settings.ts'
import type { ScreenSettings } from '../../lib/settings/types.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/board/screens/:name',
  auth: 'bearer',
  scope: 'admin',
  code: 26,
  summary:
    'Extension (screen settings): an admin changes the settings of the screen with that token name (the keys given; the others stay), all or nothing: a bad name is -4, an unknown key -20, a bad value -21; answers them all inside `screen`',
  body: bodySchemaOf(screenSettingsSchema),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'TOKEN_NAME_INVALID', 'SETTINGS_KEY_UNKNOWN', 'SETTINGS_VALUE_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { screen: { name: string; settings: ScreenSettings } }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const name = tokenName(ctx.params.name)
  return ctx.ok({ screen: { name, settings: await ctx.services.screenSettings.update(name, await ctx.body()) } })
}

export default handler
