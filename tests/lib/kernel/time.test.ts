import t from 'tap'
import { dayBounds, formatLocal, formatOffset, formatWithOffset, isValidTimezone, parseLocal } from '../../../lib/kernel/time.ts'

const instant = Date.parse('2026-07-01T10:30:05Z')

t.test('formats in IANA zones and fixed offsets', async (t) => {
  t.equal(formatLocal(instant, 'UTC'), '2026-07-01T10:30:05')
  t.equal(formatLocal(instant, 'Europe/Berlin'), '2026-07-01T12:30:05')
  t.equal(formatLocal(instant, 'Europe/Berlin', ' '), '2026-07-01 12:30:05')
  t.equal(formatWithOffset(instant, 'America/New_York'), '2026-07-01T06:30:05-04:00')
  t.equal(formatOffset(instant, '+05:30'), '+05:30')
  t.equal(formatLocal(instant, '-03:00'), '2026-07-01T07:30:05')
  t.equal(formatOffset(Date.parse('2026-01-01T00:00:00Z'), 'Europe/Berlin'), '+01:00')
})

t.test('parses wall-clock time in a zone, honouring DST', async (t) => {
  t.equal(parseLocal('2026-07-01T12:30:05', 'Europe/Berlin'), instant)
  t.equal(parseLocal('2026-01-15T12:00:00', 'Europe/Berlin'), Date.parse('2026-01-15T11:00:00Z'))
  t.equal(parseLocal('2026-07-01 12:30:05', 'Europe/Berlin'), undefined, 'space refused when T is wanted')
  t.equal(parseLocal('2026-07-01 12:30:05', 'Europe/Berlin', { separator: ' ' }), instant)
  t.equal(parseLocal('2026-07-01T10:30:05+00:00', 'Europe/Berlin'), undefined, 'offset refused unless allowed')
  t.equal(parseLocal('2026-07-01T10:30:05+00:00', 'Europe/Berlin', { allowOffset: true, separator: 'either' }), instant)
  t.equal(parseLocal('2026-07-01T10:30:05Z', 'UTC', { allowOffset: true }), instant)
  for (const bad of ['2026-02-30T00:00:00', '2026-13-01T00:00:00', '2026-01-01T24:00:00', '2026-1-1T00:00:00', 'yesterday', '']) {
    t.equal(parseLocal(bad, 'UTC'), undefined, bad)
  }
})

t.test('validates zone names', async (t) => {
  t.ok(isValidTimezone('Europe/London'))
  t.ok(isValidTimezone('+01:00'))
  t.notOk(isValidTimezone('Mars/Olympus'))
  t.notOk(isValidTimezone('+25:00'))
  t.notOk(isValidTimezone('../etc'))
})

t.test('a day in a zone is 23, 24 or 25 hours', async (t) => {
  const normal = dayBounds(instant, 'Europe/Berlin')
  t.equal(normal.start, Date.parse('2026-06-30T22:00:00Z'))
  t.equal(normal.end - normal.start, 24 * 3600_000)
  const springForward = dayBounds(Date.parse('2026-03-29T12:00:00Z'), 'Europe/Berlin')
  t.equal(springForward.end - springForward.start, 23 * 3600_000)
})

t.test('the cached offsets agree with Intl at every instant, across DST changes', async (t) => {
  const { default: fc } = await import('fast-check')
  const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham']
  const reference = (ms: number, zone: string) => {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
        .formatToParts(new Date(ms))
        .map((p) => [p.type, p.value]),
    )
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`
  }
  // Instants spread over 2024-2030 plus a dense walk across two DST changes.
  fc.assert(
    fc.property(fc.integer({ min: Date.parse('2024-01-01T00:00:00Z'), max: Date.parse('2030-12-31T00:00:00Z') }), fc.constantFrom(...zones), (ms, zone) => {
      return formatLocal(ms, zone) === reference(ms, zone)
    }),
    { seed: 7, numRuns: 3000 },
  )
  for (const zone of ['Europe/Berlin', 'America/New_York']) {
    for (let ms = Date.parse('2026-03-07T00:00:00Z'); ms < Date.parse('2026-03-30T12:00:00Z'); ms += 7 * 60_000 + 13_000) {
      if (formatLocal(ms, zone) !== reference(ms, zone)) t.fail(`${zone} ${new Date(ms).toISOString()}`)
    }
  }
  t.pass('all instants agree')
})

t.test('offsets off the quarter hour format every minute of the hour right', async (t) => {
  // A fixed "+05:07" setting: local = UTC + 5 h 7 min, minute by minute across whole hours.
  const start = Date.parse('2026-06-01T00:00:00Z')
  for (let ms = start; ms < start + 2 * 3600_000; ms += 60_000 + 1_000) {
    const expected = new Date(ms + (5 * 60 + 7) * 60_000).toISOString().slice(0, 19)
    if (formatLocal(ms, '+05:07') !== expected) t.fail(`${new Date(ms).toISOString()}: ${formatLocal(ms, '+05:07')} ≠ ${expected}`)
  }
  t.equal(formatWithOffset(Date.parse('2026-06-01T23:59:59Z'), '-00:07'), '2026-06-01T23:52:59-00:07')
  t.equal(formatLocal(Date.parse('1969-12-31T23:59:59Z'), 'UTC'), '1969-12-31T23:59:59', 'before 1970 too')
})

t.test('an instant no Date can hold is refused in a named zone', async (t) => {
  for (const bad of [Number.NaN, 9e15, -Infinity]) {
    t.throws(() => formatLocal(bad, 'Europe/Berlin'), RangeError, String(bad))
  }
})
