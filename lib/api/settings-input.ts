// The body of POST /api/v2/gateway/settings, one schema (lib/api/input-schema.ts) that parses
// and documents it. Unlike other bodies, every key must be a setting: the body's keys are
// read in order and the first unknown key (-20) or bad value (-21) is the answer, naming it.
import * as z from '../kernel/schema/index.ts'
import type { JsonSchema } from './function-config.ts'
import { DomainError } from '../kernel/errors.ts'
import { isValidTimezone } from '../kernel/time.ts'
import { type Settings, zigbeePresets } from '../settings/service.ts'
import { bodySchemaOf } from './input-schema.ts'

const settingFields = {
  zigbeePreset: z.enum(Object.keys(zigbeePresets) as [string, ...string[]]).describe('Radio channel preset (A 11, B 15, C 20, D 25)'),
  targetTimeDefault: z.number().int().min(1).max(86_400).describe('Default statistics target time in seconds (a JSON integer)'),
  // JSON Schema cannot list the zones this host knows: the description says what is taken.
  timezone: z.string().min(1).refine(isValidTimezone).describe('An IANA zone name this host knows (Europe/Berlin) or a fixed offset (+02:00)'),
}

const settingsSchema = z.strictObject(settingFields).partial()

/** The settings to change, validated whole; nothing is applied when any key is refused. */
export function settingsChanges(body: Record<string, unknown>): Partial<Settings> {
  for (const [key, value] of Object.entries(body)) {
    if (!Object.hasOwn(settingFields, key)) throw new DomainError('SETTINGS_KEY_UNKNOWN', key.slice(0, 64))
    if (!settingFields[key as keyof typeof settingFields].safeParse(value).success) throw new DomainError('SETTINGS_VALUE_INVALID', key)
  }
  return settingsSchema.parse(body)
}

export const settingsBodySchema: JsonSchema = bodySchemaOf(settingsSchema)
