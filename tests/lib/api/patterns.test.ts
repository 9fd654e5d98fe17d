import fc from 'fast-check'
import t from 'tap'
import { limitText, localDateTimeT, localDateTimeV1, positiveDecimalText, positiveIntText, upTo } from '../../../lib/api/patterns.ts'

t.test('upTo(max) matches exactly the canonical numbers 1..max', async (t) => {
  for (const max of [1, 9, 10, 11, 99, 100, 101, 254, 305, 999, 1000, 65535]) {
    const pattern = new RegExp(`^${upTo(max)}$`)
    for (let n = 0; n <= max + 20; n++) if (pattern.test(String(n)) !== (n >= 1 && n <= max)) t.fail(`${max}: ${n}`)
    t.notOk(pattern.test(`0${max}`), `${max}: no leading zero`)
  }
  const int32 = new RegExp(`^${upTo(2 ** 31 - 1)}$`)
  fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 33 }), (n) => int32.test(String(n)) === (n >= 1 && n <= 2 ** 31 - 1)))
  t.ok(int32.test('2147483647'))
  t.notOk(int32.test('2147483648'))
})

t.test('positive integers and limits allow leading zeros', async (t) => {
  t.ok(new RegExp(positiveIntText).test('0002147483647'))
  t.notOk(new RegExp(positiveIntText).test('000'))
  t.ok(new RegExp(limitText).test('0100'))
  t.notOk(new RegExp(limitText).test('101'))
  t.notOk(new RegExp(limitText).test('0'))
})

t.test('the date patterns accept exactly the real dates from year 0100', async (t) => {
  const pattern = new RegExp(localDateTimeT)
  const real = (y: number, m: number, d: number) => {
    const date = new Date(Date.UTC(y, m - 1, d))
    return y >= 100 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
  }
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (y, m, d) => {
      const text = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T12:00:00`
      return pattern.test(text) === real(y, m, d)
    }),
    { numRuns: 20_000 },
  )
  for (const year of [1900, 2000, 2023, 2024, 2100, 400, 104, 100]) {
    t.equal(pattern.test(`${String(year).padStart(4, '0')}-02-29T00:00:00`), real(year, 2, 29), `Feb 29 ${year}`)
  }
  t.notOk(pattern.test('2026-11-22T24:00:00'))
  t.notOk(pattern.test('2026-11-22 10:00:00'), 'v2: T only')
  const v1 = new RegExp(localDateTimeV1)
  for (const text of ['2026-11-22 10:00:00', '2026-11-22T10:00:00', '2026-11-22 10:00:00Z', '2026-11-22T10:00:00-05:30']) t.ok(v1.test(text), text)
})

t.test('target_time: positive decimals, at most 9 significant integer digits and 6 decimals', async (t) => {
  const pattern = new RegExp(positiveDecimalText)
  for (const ok of ['1', '300', '0.5', '0.000001', '999999999.999999', '000300', '00.25']) t.ok(pattern.test(ok), ok)
  for (const bad of ['0', '0.0', '00.000000', '.5', '1.', '1e3', '1000000000', '0.0000001', '-1', '1.1234567']) t.notOk(pattern.test(bad), bad)
})
