// time.ts with a zoneinfo directory made by the test (TZDIR, set before the module loads):
// a zone only the files know is answered from them; a zone whose file is missing or
// broken is answered by Intl, as before the files were read.
import t from 'tap'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { buildTzif } from '../../helpers/tzif.ts'

const dir = path.join(t.testdir({}), 'zoneinfo')
const write = (name: string, bytes: Uint8Array | string) => {
  mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
  writeFileSync(path.join(dir, name), bytes)
}
write('Test/Plus_Three', buildTzif({ version: 2, types: [{ utoff: 10800, abbr: '+03' }], footer: '<+03>-3' }))
write('Test/Dublin_Mean', buildTzif({ version: 2, types: [{ utoff: -1521, abbr: 'DMT' }], footer: '' }))
write('America/New_York', 'not a zone file')
process.env.TZDIR = dir
const { formatLocal, formatWithOffset, isValidTimezone, offsetMinutes } = await import('../../../lib/kernel/time.ts')

const instant = Date.parse('2026-07-01T10:30:05Z')

t.test('a zone only the files know is answered from them', async (t) => {
  t.ok(isValidTimezone('Test/Plus_Three'))
  t.ok(isValidTimezone('test/plus_three'), 'ignoring case, as Intl does')
  t.equal(formatWithOffset(instant, 'Test/Plus_Three'), '2026-07-01T13:30:05+03:00')
  t.equal(formatWithOffset(instant, 'test/plus_three'), '2026-07-01T13:30:05+03:00')
  // -25 min 21 s: whole minutes, rounded as the Intl path rounds.
  t.equal(offsetMinutes(instant, 'Test/Dublin_Mean'), -25)
  t.equal(formatLocal(instant, 'Test/Dublin_Mean'), '2026-07-01T10:05:05')
})

t.test('a missing or broken zone file: Intl answers, as before', async (t) => {
  t.ok(isValidTimezone('Europe/Berlin'), 'no file')
  t.equal(formatWithOffset(instant, 'Europe/Berlin'), '2026-07-01T12:30:05+02:00')
  t.ok(isValidTimezone('America/New_York'), 'a broken file')
  t.equal(formatWithOffset(instant, 'America/New_York'), '2026-07-01T06:30:05-04:00')
  t.ok(isValidTimezone('UTC'), 'UTC needs no file')
  t.notOk(isValidTimezone('Mars/Olympus'), 'neither knows it')
  t.notOk(isValidTimezone('../zoneinfo/Test/Plus_Three'))
})
