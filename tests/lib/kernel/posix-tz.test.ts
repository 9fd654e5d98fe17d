import t from 'tap'
import { daysFromCivil, parsePosixTz, posixTypeAt } from '../../../lib/kernel/posix-tz.ts'

const at = (iso: string) => Date.parse(iso) / 1000
/** Minutes east of UTC under `rule` at the ISO instant. */
const offset = (rule: string, iso: string) => posixTypeAt(parsePosixTz(rule), at(iso)).utoff / 60

t.test('zones without DST: plain, quoted and fractional offsets', async (t) => {
  t.same(parsePosixTz('<-03>3'), { std: { utoff: -10800, isDst: false } })
  t.equal(offset('<-03>3', '2090-07-01T00:00:00Z'), -180)
  t.equal(offset('<+0545>-5:45', '2090-07-01T00:00:00Z'), 345)
  t.equal(offset('JST-9', '1850-01-01T00:00:00Z'), 540)
  t.equal(offset('<-0930>9:30', '2050-01-01T00:00:00Z'), -570)
  t.equal(offset('<+1245>-12:45:00', '2050-01-01T00:00:00Z'), 765)
})

t.test('Mm.w.d rules switch at the stated local time, start in standard time, end in DST', async (t) => {
  const eu = 'CET-1CEST,M3.5.0,M10.5.0/3'
  t.equal(offset(eu, '2026-03-29T00:59:59Z'), 60)
  t.equal(offset(eu, '2026-03-29T01:00:00Z'), 120)
  t.equal(offset(eu, '2026-10-25T00:59:59Z'), 120)
  t.equal(offset(eu, '2026-10-25T01:00:00Z'), 60)
  t.equal(offset(eu, '2099-03-29T01:00:00Z'), 120, 'last Sunday of March 2099 is the 29th')
  t.equal(offset(eu, '2099-03-29T00:59:59Z'), 60)
  const us = 'EST5EDT,M3.2.0,M11.1.0'
  t.equal(offset(us, '2026-03-08T06:59:59Z'), -300)
  t.equal(offset(us, '2026-03-08T07:00:00Z'), -240)
  t.equal(offset(us, '2026-11-01T05:59:59Z'), -240)
  t.equal(offset(us, '2026-11-01T06:00:00Z'), -300)
  t.same(posixTypeAt(parsePosixTz(us), at('2026-07-01T00:00:00Z')), { utoff: -14400, isDst: true })
})

t.test('hours beyond 24 and negative transition times', async (t) => {
  // Israel: the Friday before the last Sunday of March, 02:00: "4th Thursday, 26:00".
  const israel = 'IST-2IDT,M3.4.4/26,M10.5.0'
  t.equal(offset(israel, '2026-03-26T23:59:59Z'), 120)
  t.equal(offset(israel, '2026-03-27T00:00:00Z'), 180)
  t.equal(offset(israel, '2026-10-24T22:59:59Z'), 180)
  t.equal(offset(israel, '2026-10-24T23:00:00Z'), 120)
  // Greenland: from Saturday 23:00 before the last Sunday of March (-1:00) to 00:00 of the last Sunday of October.
  const nuuk = '<-02>2<-01>,M3.5.0/-1,M10.5.0/0'
  t.equal(offset(nuuk, '2026-03-29T00:59:59Z'), -120)
  t.equal(offset(nuuk, '2026-03-29T01:00:00Z'), -60)
  t.equal(offset(nuuk, '2026-10-25T00:59:59Z'), -60)
  t.equal(offset(nuuk, '2026-10-25T01:00:00Z'), -120)
  // The RFC 8536 limits: 167 hours after the first Sunday of March (2026-03-01) is 2026-03-07T23:00.
  const extreme = 'AAA0BBB,M3.1.0/167,M10.1.0/-167'
  t.equal(offset(extreme, '2026-03-07T22:59:59Z'), 0)
  t.equal(offset(extreme, '2026-03-07T23:00:00Z'), 60)
  // 167 hours before the first Sunday of October (2026-10-04) in DST: 2026-09-27T01:00 local = 00:00Z.
  t.equal(offset(extreme, '2026-09-26T23:59:59Z'), 60)
  t.equal(offset(extreme, '2026-09-27T00:00:00Z'), 0)
})

t.test('southern hemisphere rules (DST across the new year) and an explicit DST offset', async (t) => {
  const sydney = 'AEST-10AEDT,M10.1.0,M4.1.0/3'
  t.equal(offset(sydney, '2027-01-01T00:00:00Z'), 660)
  t.equal(offset(sydney, '2026-12-31T23:59:59Z'), 660)
  t.equal(offset(sydney, '2026-07-01T00:00:00Z'), 600)
  t.equal(offset(sydney, '2026-04-04T15:59:59Z'), 660, 'DST until 03:00 AEDT on the first Sunday of April')
  t.equal(offset(sydney, '2026-04-04T16:00:00Z'), 600)
  t.equal(offset(sydney, '2026-10-03T15:59:59Z'), 600)
  t.equal(offset(sydney, '2026-10-03T16:00:00Z'), 660)
  const lordHowe = '<+1030>-10:30<+11>-11,M10.1.0,M4.1.0'
  t.equal(offset(lordHowe, '2090-01-15T00:00:00Z'), 660)
  t.equal(offset(lordHowe, '2090-06-15T00:00:00Z'), 630)
})

t.test('Jn never counts February 29; n counts it from 0', async (t) => {
  const julian = 'XXX3YYY,J60/0,J300/0'
  t.equal(offset(julian, '2028-02-29T12:00:00Z'), -180, 'leap year: J60 is still March 1')
  t.equal(offset(julian, '2028-03-01T02:59:59Z'), -180)
  t.equal(offset(julian, '2028-03-01T03:00:00Z'), -120)
  t.equal(offset(julian, '2027-03-01T03:00:00Z'), -120)
  t.equal(offset(julian, '2027-02-28T12:00:00Z'), -180)
  const zeroBased = 'XXX3YYY,59/0,299/0'
  t.equal(offset(zeroBased, '2028-02-29T03:00:00Z'), -120, 'leap year: day 59 is February 29')
  t.equal(offset(zeroBased, '2028-02-29T02:59:59Z'), -180)
  t.equal(offset(zeroBased, '2027-03-01T03:00:00Z'), -120, 'other years: March 1')
  t.equal(offset(zeroBased, '2027-03-01T02:59:59Z'), -180)
  t.equal(offset('XXX3YYY,J1/0,J365/24', '2027-12-31T12:00:00Z'), -120)
})

t.test('DST all year ("0/0,J365/25") stays DST across every new year', async (t) => {
  const always = 'EST5EDT,0/0,J365/25'
  for (const iso of [
    '2030-01-01T00:00:00Z',
    '2030-01-01T04:59:59Z',
    '2030-01-01T05:00:00Z',
    '2030-07-01T00:00:00Z',
    '2030-12-31T23:59:59Z',
    '2031-01-01T05:00:00Z',
    '2032-02-29T12:00:00Z',
    '2032-12-31T23:00:00Z',
  ]) {
    t.equal(offset(always, iso), -240, iso)
  }
})

t.test('malformed TZ strings are refused with a PosixTzError', async (t) => {
  const bad = [
    '',
    'C',
    'CET',
    'CE-1',
    'CET-1CEST',
    'CET-25',
    'CET-1:60',
    '<+05',
    '<+0>5',
    'CET-1CEST,M3.5.0',
    'CET-1CEST,M13.1.0,M10.5.0',
    'CET-1CEST,M3.6.0,M10.5.0',
    'CET-1CEST,M3.5.7,M10.5.0',
    'CET-1CEST,M3.5,M10.5.0',
    'CET-1CEST,J0,J10',
    'CET-1CEST,J366,J10',
    'CET-1CEST,366,10',
    'CET-1CEST,M3.5.0/168,M10.5.0',
    'CET-1CEST,M3.5.0,M10.5.0 x',
    'CET-1CEST-2x,M3.5.0,M10.5.0',
  ]
  for (const text of bad) t.throws(() => parsePosixTz(text), { name: 'PosixTzError' }, JSON.stringify(text))
})

t.test('the calendar arithmetic agrees with Date over many centuries', async (t) => {
  const { default: fc } = await import('fast-check')
  fc.assert(
    fc.property(fc.integer({ min: -4000, max: 4000 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), (year, month, day) => {
      const date = new Date(0)
      date.setUTCFullYear(year, month - 1, day)
      return daysFromCivil(year, month, day) * 86_400_000 === date.getTime()
    }),
    { seed: 30, numRuns: 2000 },
  )
  // The year of an instant, at the edges of years, through the rules: a rule switching at
  // 00:00 UTC on January 1 ("XXX0YYY,0/0,...") must put 23:59:59 on December 31 in the old year's state.
  const rule = 'XXX0YYY-1,J365/23,0/1'
  for (const year of [1900, 1999, 2000, 2024, 2100, 2400]) {
    t.equal(offset(rule, `${year}-12-31T22:59:59Z`), 0, `${year}: before`)
    t.equal(offset(rule, `${year}-12-31T23:00:00Z`), 60, `${year}: new year's eve DST`)
    t.equal(offset(rule, `${year + 1}-01-01T00:00:00Z`), 0, `${year + 1}: ends at 01:00 DST`)
  }
})
