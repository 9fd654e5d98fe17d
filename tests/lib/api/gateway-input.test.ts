import fc from 'fast-check'
import t from 'tap'
import { activateBody, checkQuery, pairingBody, repeatersQuery } from '../../../lib/api/gateway-input.ts'
import { DomainError } from '../../../lib/kernel/errors.ts'

const kindOf = (run: () => unknown): string => {
  try {
    return JSON.stringify(run())
  } catch (error) {
    return (error as DomainError).kind
  }
}

/** The hand-written parser the schema replaced, kept here as the reference it must match. */
function checkTimeout(text: string | undefined): number {
  if (text === undefined) return 5
  if (!/^[+-]?[0-9]{1,10}$/.test(text)) throw new DomainError('CHECK_TIMEOUT_INVALID')
  const value = Number(text)
  if (value < 0 || value > 254) throw new DomainError('CHECK_TIMEOUT_OUT_OF_RANGE')
  return value
}

const timeout = (text?: string) => checkQuery.parse(new URLSearchParams(text === undefined ? {} : { timeout: text })).timeout

t.test('the check timeout: default, bounds and the kind of each failure', async (t) => {
  t.equal(timeout(undefined), 5)
  t.equal(timeout('0'), 0)
  t.equal(timeout('254'), 254)
  t.throws(() => timeout('2.5'), new DomainError('CHECK_TIMEOUT_INVALID'))
  t.throws(() => timeout('255'), new DomainError('CHECK_TIMEOUT_OUT_OF_RANGE'))
  t.throws(() => timeout('-3'), new DomainError('CHECK_TIMEOUT_OUT_OF_RANGE'))
})

t.test('the check timeout schema answers exactly as the parser it replaced (value and error kind)', async (t) => {
  const texts = fc.oneof(
    fc.stringMatching(/^[+-]?0{0,11}[0-9]{1,4}$/),
    fc.constantFrom('', '+', '-', '-0', '+0', '0000000000', '00000000000', '+0000000254', '254', '255', '2.5', ' 5', 'x'.repeat(300)),
    fc.string({ maxLength: 4 }),
  )
  fc.assert(
    fc.property(texts, (text) => {
      const expected = kindOf(() => checkTimeout(text))
      const actual = kindOf(() => checkQuery.parse(new URLSearchParams({ timeout: text })).timeout)
      return expected === actual || (expected === '-0' && actual === '0')
    }),
    { seed: 20261123, numRuns: 2000 },
  )
  t.equal(checkQuery.parse(new URLSearchParams()).timeout, 5, 'absent: 5 s')
})

t.test('refresh, pairing timeout and device code map each failure to its kind', async (t) => {
  t.equal(repeatersQuery.parse(new URLSearchParams('refresh=true')).refresh, true)
  t.equal(repeatersQuery.parse(new URLSearchParams()).refresh, false)
  t.throws(() => repeatersQuery.parse(new URLSearchParams('refresh=yes')), new DomainError('REFRESH_INVALID'))
  t.equal(pairingBody.parse({}).timeout, 60)
  t.equal(pairingBody.parse({ timeout: '007' }).timeout, 7)
  t.equal(pairingBody.parse({ timeout: 254 }).timeout, 254)
  for (const timeout of [null, 255, '255', '0007', -1, 1.5, true]) {
    t.throws(() => pairingBody.parse({ timeout }), new DomainError('PAIRING_TIMEOUT_INVALID'), JSON.stringify(timeout))
  }
  t.equal(activateBody.parse({ deviceCode: '123-4567-890' }).deviceCode, '123-4567-890')
  for (const body of [{}, { deviceCode: null }, { deviceCode: '' }]) t.throws(() => activateBody.parse(body), new DomainError('DEVICE_CODE_MISSING'))
  t.throws(() => activateBody.parse({ deviceCode: 123 }), new DomainError('DEVICE_CODE_MALFORMED'))
})
