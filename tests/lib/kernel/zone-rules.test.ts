import t, { type Test } from 'tap'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { isZoneFileName, ZoneRuleBook, zoneRulesFor } from '../../../lib/kernel/zone-rules.ts'
import { buildTzif } from '../../helpers/tzif.ts'

const at = (iso: string) => Date.parse(iso) / 1000

/** A zoneinfo directory with files made for the test; returns its path. */
function zoneinfo(t: Test, files: Record<string, Uint8Array | string>): string {
  const root = t.testdir({})
  const dir = path.join(root, 'zoneinfo')
  for (const [name, bytes] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), bytes)
  }
  mkdirSync(dir, { recursive: true })
  return dir
}

const testville = buildTzif({
  version: 2,
  transitions: [at('1893-04-01T00:00:00Z'), at('2020-03-29T01:00:00Z'), at('2020-10-25T01:00:00Z')],
  transitionTypes: [1, 2, 1],
  types: [
    { utoff: 3208, abbr: 'LMT' },
    { utoff: 3600, abbr: 'CET' },
    { utoff: 7200, isDst: true, abbr: 'CEST' },
  ],
  footer: 'CET-1CEST,M3.5.0,M10.5.0/3',
})
const version1 = buildTzif({
  version: 1,
  transitions: [at('1970-06-01T00:00:00Z'), at('2000-01-01T00:00:00Z')],
  transitionTypes: [1, 2],
  types: [{ utoff: -3600 }, { utoff: 0 }, { utoff: 19800 }],
})
const slim = buildTzif({ version: 3, types: [{ utoff: -18000, abbr: 'EST' }], footer: 'EST5EDT,M3.2.0,M11.1.0' })
const noFooter = buildTzif({ version: 2, transitions: [at('2000-01-01T00:00:00Z')], transitionTypes: [1], types: [{ utoff: 0 }, { utoff: 36000 }] })

t.test('offsets before, between and after the stored transitions', async (t) => {
  const book = new ZoneRuleBook(zoneinfo(t, { 'Europe/Testville': testville, 'Old/Version1': version1, 'Etc/Slim': slim, 'Etc/NoFooter': noFooter }))
  const zone = book.lookup('Europe/Testville')!
  t.equal(zone.name, 'Europe/Testville')
  t.equal(zone.offsetSecondsAt(at('1800-01-01T00:00:00Z')), 3208, 'before the first transition: the first type')
  t.equal(zone.offsetSecondsAt(at('1893-03-31T23:59:59Z')), 3208)
  t.equal(zone.offsetSecondsAt(at('1893-04-01T00:00:00Z')), 3600, 'at a transition: the new type')
  t.equal(zone.offsetSecondsAt(at('2020-07-01T00:00:00Z')), 7200)
  t.equal(zone.offsetSecondsAt(at('2020-10-25T01:00:00Z')), 3600, 'at the last transition: its type')
  t.equal(zone.offsetSecondsAt(at('2021-07-01T00:00:00Z')), 7200, 'after it: the footer')
  t.equal(zone.offsetSecondsAt(at('2099-03-29T00:59:59Z')), 3600)
  t.equal(zone.offsetSecondsAt(at('2099-03-29T01:00:00Z')), 7200)

  const v1 = book.lookup('Old/Version1')!
  t.equal(v1.offsetSecondsAt(at('1960-01-01T00:00:00Z')), -3600)
  t.equal(v1.offsetSecondsAt(at('1980-01-01T00:00:00Z')), 0)
  t.equal(v1.offsetSecondsAt(at('2090-01-01T00:00:00Z')), 19800, 'no footer in version 1: the last type stays')

  const slimZone = book.lookup('Etc/Slim')!
  t.equal(slimZone.offsetSecondsAt(at('1950-01-01T00:00:00Z')), -18000, 'no transitions: the footer for every instant')
  t.equal(slimZone.offsetSecondsAt(at('1950-07-01T00:00:00Z')), -14400)
  t.equal(slimZone.offsetSecondsAt(at('2090-07-01T00:00:00Z')), -14400)

  const empty = book.lookup('Etc/NoFooter')!
  t.equal(empty.offsetSecondsAt(at('1999-01-01T00:00:00Z')), 0)
  t.equal(empty.offsetSecondsAt(at('2090-01-01T00:00:00Z')), 36000, 'an empty footer: the last type stays')
})

t.test('only names of zone files inside the directory are read', async (t) => {
  const dir = zoneinfo(t, {
    'Europe/Testville': testville,
    posixrules: testville,
    'right/Europe/Testville': testville,
    'posix/Europe/Testville': testville,
    Factory: slim,
    'Area/lower_city': testville,
  })
  writeFileSync(path.join(dir, '..', 'outside'), testville)
  symlinkSync(path.join(dir, 'Europe', 'Testville'), path.join(dir, 'Linked'))
  const book = new ZoneRuleBook(dir)
  for (const name of [
    '../outside',
    '/etc/passwd',
    path.join(dir, 'Europe/Testville'),
    'Europe/../Europe/Testville',
    'Europe//Testville',
    'Europe/Testville/',
    '/Europe/Testville',
    'Europe/Test ville',
    '',
    'A'.repeat(65),
  ]) {
    t.equal(isZoneFileName(name), false, `not a zone name: ${JSON.stringify(name)}`)
    t.equal(book.lookup(name), undefined, `not read: ${JSON.stringify(name)}`)
  }
  for (const name of ['posixrules', 'right/Europe/Testville', 'posix/Europe/Testville', 'Factory', 'Area/lower_city']) {
    t.equal(book.lookup(name), undefined, `a file beside the zones, not one: ${name}`)
  }
  t.equal(book.lookup('Europe'), undefined, 'a directory')
  t.equal(book.lookup('Europe/Testville/More'), undefined, 'below a file')
  t.equal(book.lookup('Nowhere/Land'), undefined, 'missing')
  t.ok(book.lookup('Linked'), 'a link inside the directory is followed, as tzdata links its aliases')
  t.equal(new ZoneRuleBook(path.join(dir, 'absent')).lookup('Europe/Testville'), undefined, 'no zoneinfo directory')
})

t.test('names are matched ignoring case, as Intl matches them, unless that is ambiguous', async (t) => {
  const book = new ZoneRuleBook(zoneinfo(t, { 'Europe/Testville': testville, UTC: slim, 'Amb/Zone': slim, 'Amb/ZONE': testville }))
  t.equal(book.lookup('europe/testville')?.name, 'Europe/Testville')
  t.equal(book.lookup('EUROPE/TESTVILLE')?.name, 'Europe/Testville')
  t.equal(book.lookup('utc')?.name, 'UTC')
  t.equal(book.lookup('Amb/ZONE')?.name, 'Amb/ZONE', 'an exact spelling wins')
  t.equal(book.lookup('amb/zone'), undefined, 'two spellings match: neither is guessed')
})

t.test('files that are not readable zones are refused, so the caller can fall back', async (t) => {
  const book = new ZoneRuleBook(
    zoneinfo(t, {
      'Bad/Magic': Buffer.from(`TZix${'\0'.repeat(60)}`),
      'Bad/Truncated': testville.subarray(0, testville.length - 20),
      'Bad/Footer': buildTzif({ version: 2, types: [{ utoff: 0 }], footer: 'CET-1CEST' }),
      'Bad/Text': 'Europe/Berlin\n',
      'Bad/Huge': Buffer.alloc(300 * 1024),
    }),
  )
  for (const name of ['Bad/Magic', 'Bad/Truncated', 'Bad/Footer', 'Bad/Text', 'Bad/Huge']) t.equal(book.lookup(name), undefined, name)
})

t.test('a zone is read once and kept, in a bounded map', async (t) => {
  const dir = zoneinfo(t, { 'A/One': slim, 'A/Two': slim, 'A/Three': slim })
  const book = new ZoneRuleBook(dir, 2)
  const first = book.lookup('A/One')
  writeFileSync(path.join(dir, 'A/One'), testville)
  t.equal(book.lookup('A/One'), first, 'not read again')
  book.lookup('A/Two')
  book.lookup('A/Three')
  const again = book.lookup('A/One')!
  t.not(again, first, 'read again once it was pushed out of the map')
  t.equal(again.offsetSecondsAt(at('2090-01-01T00:00:00Z')), 3600, 'from the file as it is now')
  t.equal(book.lookup('A/Missing'), undefined)
  writeFileSync(path.join(dir, 'A/Missing'), slim)
  t.equal(book.lookup('A/Missing'), undefined, 'a miss is remembered too')
})

t.test('the process-wide book reads TZDIR', async (t) => {
  const dir = zoneinfo(t, { 'Test/Zone': slim })
  const saved = process.env.TZDIR
  process.env.TZDIR = dir
  t.teardown(() => {
    if (saved === undefined) delete process.env.TZDIR
    else process.env.TZDIR = saved
  })
  t.equal(zoneRulesFor('Test/Zone')?.offsetSecondsAt(at('2090-01-01T00:00:00Z')), -18000)
})
