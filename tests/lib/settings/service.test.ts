import t from 'tap'
import { SettingsService } from '../../../lib/settings/service.ts'
import { Store } from '../../../lib/store/db.ts'

t.test('defaults, all-or-nothing updates, persistence and listeners', async (t) => {
  const dir = t.testdir({})
  const settings = await SettingsService.open(await new Store({ dataDir: dir }).collection('settings'))
  t.equal(settings.get().targetTimeDefault, 300)
  t.equal(settings.get().zigbeePreset, 'A')
  const seen: string[] = []
  settings.onChange((s) => seen.push(s.timezone))

  await t.rejects(settings.update({ targetTimeDefault: 120, colour: 'red' }), { name: 'DomainError', kind: 'SETTINGS_KEY_UNKNOWN', detail: 'colour' })
  await t.rejects(settings.update({ targetTimeDefault: 120, timezone: 'Mars/Base' }), { name: 'DomainError', kind: 'SETTINGS_VALUE_INVALID', detail: 'timezone' })
  await t.rejects(settings.update({ targetTimeDefault: 0 }), { name: 'DomainError', kind: 'SETTINGS_VALUE_INVALID' })
  await t.rejects(settings.update({ zigbeePreset: 'Z' }), { name: 'DomainError', kind: 'SETTINGS_VALUE_INVALID' })
  t.equal(settings.get().targetTimeDefault, 300, 'nothing changed by refused updates')

  await settings.update({ targetTimeDefault: 120, timezone: 'Europe/Paris' })
  t.same(seen, ['Europe/Paris'])
  t.equal(settings.timezone, 'Europe/Paris')
  const reopened = await SettingsService.open(await new Store({ dataDir: dir }).collection('settings'))
  t.equal(reopened.get().targetTimeDefault, 120)
  t.equal(reopened.get().timezone, 'Europe/Paris')
})
