import t from 'tap'
import { SettingsService, zigbeePresets } from '../../../lib/settings/service.ts'
import { Store } from '../../../lib/store/db.ts'

t.test('defaults, all-or-nothing updates, persistence and listeners', async (t) => {
  const dir = t.testdir({})
  const settings = await SettingsService.open(await new Store({ dataDir: dir }).collection('settings'))
  t.equal(settings.get().targetTimeDefault, 300)
  t.equal(settings.get().zigbeePreset, 'B', 'a new gateway starts on B (channel 15), not 11')
  const seen: string[] = []
  settings.on('changed', (s) => seen.push(s.timezone))

  await t.rejects(settings.update({ targetTimeDefault: 120, colour: 'red' }), { name: 'DomainError', kind: 'SETTINGS_KEY_UNKNOWN', detail: 'colour' })
  await t.rejects(settings.update({ targetTimeDefault: 120, timezone: 'Mars/Base' }), {
    name: 'DomainError',
    kind: 'SETTINGS_VALUE_INVALID',
    detail: 'timezone',
  })
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

t.test('the default preset is stored at first start, so a later default never moves a running network', async (t) => {
  const dir = t.testdir({})
  const formed = await SettingsService.open(await new Store({ dataDir: dir }).collection('settings'), { defaultPreset: 'A' })
  t.equal(formed.get().zigbeePreset, 'A', 'a network formed before the default moved keeps A')
  const reopened = await SettingsService.open(await new Store({ dataDir: dir }).collection('settings'), { defaultPreset: 'B' })
  t.equal(reopened.get().zigbeePreset, 'A', 'the stored letter wins over the default')
  t.equal(reopened.get().targetTimeDefault, 300, 'other settings keep their defaults')
  t.same(zigbeePresets.A, { channel: 11 }, 'a letter keeps its channel across versions')
})
