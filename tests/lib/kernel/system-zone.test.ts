import t, { type Test } from 'tap'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { hostZoneSources, systemZoneName, zoneNameOf, type SystemZoneSources } from '../../../lib/kernel/system-zone.ts'

// A validator with a fixed list, so the test does not depend on the machine's tzdata.
const known = new Set(['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'UTC', 'Etc/UTC', 'Zulu'])
const isValid = (zone: string) => known.has(zone)

/** Sources in a temp dir: `localtime` a link to `target` (or absent), `timezone` holding `content` (or absent). */
function sources(
  t: Test,
  options: { tz?: string; target?: string; timezone?: string; intl?: string | Error },
): SystemZoneSources & { intlAsked: () => number } {
  const dir = t.testdir({})
  const etc = path.join(dir, 'etc')
  mkdirSync(etc)
  if (options.target !== undefined) symlinkSync(options.target, path.join(etc, 'localtime'))
  if (options.timezone !== undefined) writeFileSync(path.join(etc, 'timezone'), options.timezone)
  let asked = 0
  return {
    env: options.tz === undefined ? {} : { TZ: options.tz },
    localtime: path.join(etc, 'localtime'),
    timezoneFile: path.join(etc, 'timezone'),
    intl: () => {
      asked++
      if (options.intl instanceof Error) throw options.intl
      return options.intl
    },
    intlAsked: () => asked,
  }
}

t.test('TZ first: a name or ":name"', async (t) => {
  const both = { target: '/usr/share/zoneinfo/Asia/Kolkata', timezone: 'Pacific/Chatham\n' }
  t.equal(systemZoneName(isValid, sources(t, { ...both, tz: 'Europe/Berlin' })), 'Europe/Berlin')
  t.equal(systemZoneName(isValid, sources(t, { ...both, tz: ':America/New_York' })), 'America/New_York')
  t.equal(systemZoneName(isValid, sources(t, { ...both, tz: ':/usr/share/zoneinfo/Europe/Berlin' })), 'Europe/Berlin', 'a path into the zoneinfo directory')
  t.equal(systemZoneName(isValid, sources(t, { ...both, tz: 'Mars/Olympus' })), 'Asia/Kolkata', 'a TZ that is no zone: the next source')
  t.equal(systemZoneName(isValid, sources(t, { ...both, tz: '' })), 'Asia/Kolkata', 'an empty TZ counts as unset')
})

t.test('then the zone /etc/localtime links to', async (t) => {
  t.equal(systemZoneName(isValid, sources(t, { target: '/usr/share/zoneinfo/Europe/Berlin', timezone: 'Asia/Kolkata' })), 'Europe/Berlin')
  t.equal(systemZoneName(isValid, sources(t, { target: '../usr/share/zoneinfo/America/New_York' })), 'America/New_York', 'a relative link')
  t.equal(systemZoneName(isValid, sources(t, { target: '/usr/share/zoneinfo/posix/Pacific/Chatham' })), 'Pacific/Chatham', 'into the posix/ copies')
  t.equal(
    systemZoneName(isValid, sources(t, { target: '/somewhere/else', timezone: 'Asia/Kolkata\n' })),
    'Asia/Kolkata',
    'a link that names no zone: the next source',
  )
})

t.test('then /etc/timezone, then Intl, then UTC', async (t) => {
  const dir = t.testdir({ localtime: 'a copied file, not a link' })
  const copied = { ...sources(t, { timezone: '  Pacific/Chatham \n' }), localtime: path.join(dir, 'localtime') }
  t.equal(systemZoneName(isValid, copied), 'Pacific/Chatham', '/etc/localtime a plain file: /etc/timezone, trimmed')
  const noFiles = sources(t, { intl: 'America/New_York' })
  t.equal(systemZoneName(isValid, noFiles), 'America/New_York', 'nothing on disk: what Intl reports')
  t.equal(noFiles.intlAsked(), 1)
  const fromFiles = sources(t, { timezone: 'Europe/Berlin', intl: 'America/New_York' })
  t.equal(systemZoneName(isValid, fromFiles), 'Europe/Berlin')
  t.equal(fromFiles.intlAsked(), 0, 'Intl (ICU) is not asked when a file names the zone')
  t.equal(systemZoneName(isValid, sources(t, { timezone: 'Not/AZone', intl: 'Etc/Unknown' })), 'UTC', 'nothing valid anywhere: UTC')
  t.equal(systemZoneName(isValid, sources(t, { intl: new Error('no ICU') })), 'UTC', 'Intl failing: UTC')
  t.equal(systemZoneName(isValid, sources(t, { timezone: '' })), 'UTC')
})

t.test('a file naming UTC by another name gives "UTC", as Intl reported it; TZ is kept as written', async (t) => {
  t.equal(systemZoneName(isValid, sources(t, { target: '/usr/share/zoneinfo/Etc/UTC' })), 'UTC')
  t.equal(systemZoneName(isValid, sources(t, { timezone: 'Etc/UTC\n' })), 'UTC')
  t.equal(systemZoneName(isValid, sources(t, { target: '/usr/share/zoneinfo/Zulu' })), 'UTC')
  t.equal(systemZoneName(isValid, sources(t, { tz: 'Etc/UTC', target: '/usr/share/zoneinfo/Europe/Berlin' })), 'Etc/UTC')
})

t.test('zone names from TZ values and paths', async (t) => {
  t.equal(zoneNameOf(':Europe/Berlin'), 'Europe/Berlin')
  t.equal(zoneNameOf('/usr/share/zoneinfo/right/Europe/Berlin'), 'Europe/Berlin')
  t.equal(zoneNameOf('/usr/lib/zoneinfo/Etc/UTC\n'), 'Etc/UTC')
  t.equal(zoneNameOf('CET-1CEST,M3.5.0,M10.5.0/3'), 'CET-1CEST,M3.5.0,M10.5.0/3', 'anything else as it is (then refused by the validator)')
})

t.test('the host sources are the real ones', async (t) => {
  t.equal(hostZoneSources.env, process.env)
  t.equal(hostZoneSources.localtime, '/etc/localtime')
  t.equal(hostZoneSources.timezoneFile, '/etc/timezone')
  t.type(hostZoneSources.intl(), 'string')
})
