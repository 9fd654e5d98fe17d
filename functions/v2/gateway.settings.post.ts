import { settingsBodySchema, settingsChanges } from '../../lib/api/settings-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/gateway/settings',
  auth: 'bearer',
  code: 13,
  summary: 'Change settings, all or nothing: an unknown key (-20) or a bad value (-21) changes nothing',
  body: settingsBodySchema,
  outcomes: ['SETTINGS_CHANGED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'SETTINGS_KEY_UNKNOWN', 'SETTINGS_VALUE_INVALID', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const settings = await ctx.services.settings.update(settingsChanges(await ctx.body()))
  return ctx.ok({ settings }, { outcome: 'SETTINGS_CHANGED' })
}

export default handler
