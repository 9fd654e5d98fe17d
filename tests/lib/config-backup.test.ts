// The `backup` section of gateway.config.json (lib/config.ts).
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { loadConfig, parseConfig } from '../../lib/config.ts'

t.test('off by default; the time is HH:MM; keep is at least 1', async (t) => {
  t.same(parseConfig({}).backup, { directory: null, at: '03:30', keep: 7, passphraseFile: null })
  t.throws(() => parseConfig({ backup: { at: '25:00' } }), { name: 'ConfigError', message: /"backup\.at": a time of day as HH:MM/ })
  t.throws(() => parseConfig({ backup: { at: '3:30' } }), { message: /"backup\.at"/ })
  t.throws(() => parseConfig({ backup: { keep: 0 } }), { message: /"backup\.keep"/ })
  t.throws(() => parseConfig({ backup: { everyHours: 6 } }), { message: /unknown key "backup\.everyHours"/ })
})

t.test('paths are relative to the config file, as dataDir is', async (t) => {
  const dir = t.testdir()
  const file = path.join(dir, 'gateway.config.json')
  writeFileSync(file, JSON.stringify({ backup: { directory: 'usb', passphraseFile: 'secret/pass', at: '23:15', keep: 3 } }))
  t.same(loadConfig({ configPath: file }, {}, '/elsewhere').backup, {
    directory: path.join(dir, 'usb'),
    passphraseFile: path.join(dir, 'secret/pass'),
    at: '23:15',
    keep: 3,
  })
  t.same(
    loadConfig({}, {}, dir, path.join(dir, 'none.json')).backup,
    { directory: path.join(dir, 'usb'), passphraseFile: path.join(dir, 'secret/pass'), at: '23:15', keep: 3 },
    './gateway.config.json',
  )
  writeFileSync(file, JSON.stringify({ backup: { directory: '/mnt/backup' } }))
  t.equal(loadConfig({ configPath: file }, {}, '/elsewhere').backup.directory, '/mnt/backup')
  t.equal(loadConfig({ configPath: file }, {}, '/elsewhere').backup.passphraseFile, null)
})
