// The point of the zone files: formatting gateway-local time, validating zone names and
// finding the host's zone never construct an Intl.DateTimeFormat, the object whose first use
// pages ICU's zone and locale data into the process (about 8 MB resident). A fresh child
// process counts every construction (and call) of Intl.DateTimeFormat and every
// localeCompare before it loads the modules, then uses them.
import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { defaultZoneinfoDir } from '../../../lib/kernel/zone-rules.ts'

const dir = process.env.TZDIR || defaultZoneinfoDir
const needed = ['Europe/Berlin', 'America/New_York'].filter((zone) => !existsSync(path.join(dir, zone)))

const child = `
let formatters = 0
let collations = 0
const DateTimeFormat = Intl.DateTimeFormat
Intl.DateTimeFormat = new Proxy(DateTimeFormat, {
  construct: (target, args) => (formatters++, Reflect.construct(target, args)),
  apply: (target, self, args) => (formatters++, Reflect.apply(target, self, args)),
})
const localeCompare = String.prototype.localeCompare
String.prototype.localeCompare = function (...args) { collations++; return localeCompare.apply(this, args) }
const time = await import(process.env.TIME_MODULE)
const settings = await import(process.env.SETTINGS_MODULE)
const text = await import(process.env.TEXT_ORDER_MODULE)
const at = Date.parse('2026-07-01T10:30:05Z')
const results = [
  time.formatWithOffset(at, 'Europe/Berlin'),
  time.formatWithOffset(at, 'America/New_York'),
  time.formatLocal(Date.parse('2026-01-15T12:00:00Z'), 'Europe/Berlin', ' '),
  time.isValidTimezone('Europe/Berlin'),
  time.isValidTimezone('America/New_York'),
  time.isValidTimezone('europe/berlin'),
  time.parseLocal('2026-03-29T12:00:00', 'Europe/Berlin'),
  time.dayBounds(at, 'America/New_York').start,
  settings.systemTimezone(),
  ['00:0d:6f:00:00:01:00:0b', '00:0d:6f:00:00:01:00:0a'].sort(text.byCodeUnits).join(' '),
  ['b2', 'A1', 'a1'].sort(text.byLettersAndDigits).join(' '),
]
console.log(JSON.stringify({ results, formatters, collations }))
`

t.test(
  'gateway-local time without ICU',
  { skip: needed.length > 0 && `the zoneinfo directory ${dir} lacks ${needed.join(', ')}: the gateway would use Intl` },
  async (t) => {
    const module = (relative: string) => new URL(`../../../lib/${relative}`, import.meta.url).href
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', child],
        {
          env: {
            ...process.env,
            TZ: 'Europe/Berlin',
            TIME_MODULE: module('kernel/time.ts'),
            SETTINGS_MODULE: module('settings/service.ts'),
            TEXT_ORDER_MODULE: module('kernel/text-order.ts'),
          },
        },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      )
    })
    const report = JSON.parse(output) as { results: unknown[]; formatters: number; collations: number }
    t.same(
      report.results,
      [
        '2026-07-01T12:30:05+02:00',
        '2026-07-01T06:30:05-04:00',
        '2026-01-15 13:00:00',
        true,
        true,
        true,
        Date.parse('2026-03-29T10:00:00Z'),
        Date.parse('2026-07-01T04:00:00Z'),
        'Europe/Berlin',
        '00:0d:6f:00:00:01:00:0a 00:0d:6f:00:00:01:00:0b',
        'a1 A1 b2',
      ],
      'the right answers',
    )
    t.equal(report.formatters, 0, 'no Intl.DateTimeFormat was made or called')
    t.equal(report.collations, 0, 'no localeCompare')
  },
)
