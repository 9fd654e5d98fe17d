import { settingsBodySchema, settingsChanges } from '../../lib/api/settings-input.ts'
import { refuseChannelMove, settingsQuery } from '../../lib/api/settings-channel.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { Settings } from '../../lib/settings/types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/gateway/settings',
  auth: 'bearer',
  scope: 'admin',
  code: 13,
  summary:
    'Change settings, all or nothing: an unknown key (-20) or a bad value (-21) changes nothing; a zigbeePreset that would move a network with paired devices is -45 without force=true',
  body: settingsBodySchema,
  query: settingsQuery.params(),
  outcomes: ['SETTINGS_CHANGED'],
  errors: [
    'AUTH_MALFORMED',
    'AUTH_REJECTED',
    'SETTINGS_KEY_UNKNOWN',
    'SETTINGS_VALUE_INVALID',
    'CHANNEL_MOVE_REFUSED',
    'FORCE_INVALID',
    'JSON_INVALID',
    'RATE_LIMITED',
  ],
} as const satisfies FunctionConfig

type Answer = { settings: Settings }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const changes = settingsChanges(await ctx.body())
  const { force } = settingsQuery.parse(ctx.query)
  await refuseChannelMove(ctx.services.settings.get(), changes, ctx.services.radioUpkeep, force)
  const settings = await ctx.services.settings.update(changes)
  return ctx.ok({ settings }, { outcome: 'SETTINGS_CHANGED' })
}

export default handler
