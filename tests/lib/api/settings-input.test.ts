import t from 'tap'
import { settingsBodySchema, settingsChanges } from '../../../lib/api/settings-input.ts'
import { DomainError } from '../../../lib/kernel/errors.ts'

t.test('settings: the first unknown key (-20) or bad value (-21) in body order names the key', async (t) => {
  t.same(settingsChanges({ zigbeePreset: 'C', targetTimeDefault: 60, timezone: 'UTC' }), { zigbeePreset: 'C', targetTimeDefault: 60, timezone: 'UTC' })
  t.same(settingsChanges({}), {})
  t.throws(() => settingsChanges({ colour: 'red', zigbeePreset: 'Z' }), new DomainError('SETTINGS_KEY_UNKNOWN', 'colour'))
  t.throws(() => settingsChanges({ zigbeePreset: 'Z', colour: 'red' }), new DomainError('SETTINGS_VALUE_INVALID', 'zigbeePreset'))
  t.throws(() => settingsChanges({ timezone: 'Mars/Olympus' }), new DomainError('SETTINGS_VALUE_INVALID', 'timezone'))
  t.throws(() => settingsChanges({ targetTimeDefault: null }), new DomainError('SETTINGS_VALUE_INVALID', 'targetTimeDefault'))
  t.match(settingsBodySchema, {
    type: 'object',
    additionalProperties: false,
    properties: { targetTimeDefault: { type: 'integer', minimum: 1, maximum: 86400 } },
  })
})
