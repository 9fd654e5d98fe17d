import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/gateway/settings',
  auth: 'bearer',
  code: 13,
  summary: 'Change settings, all or nothing: an unknown key (-20) or a bad value (-21) changes nothing',
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      zigbeePreset: { type: 'string', enum: ['A', 'B', 'C', 'D'], description: 'Radio channel preset (A 11, B 15, C 20, D 25)' },
      targetTimeDefault: { type: 'integer', minimum: 1, maximum: 86400, description: 'Default statistics target time in seconds' },
      timezone: { type: 'string', description: 'IANA zone name (Europe/Berlin) or a fixed offset (+02:00)' },
    },
  },
  outcomes: ['SETTINGS_CHANGED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'SETTINGS_KEY_UNKNOWN', 'SETTINGS_VALUE_INVALID', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const settings = await ctx.services.settings.update(await ctx.body())
  return ctx.ok({ settings }, { outcome: 'SETTINGS_CHANGED' })
}

export default handler
