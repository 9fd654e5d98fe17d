import t from 'tap'
import { byCodeUnits, byLettersAndDigits } from '../../../lib/kernel/text-order.ts'

// These orders replace localeCompare (ICU's collator); the tests use it as the reference.
t.test('radio addresses sort by code units exactly as localeCompare sorts them', async (t) => {
  const { default: fc } = await import('fast-check')
  const address = fc
    .array(fc.integer({ min: 0, max: 255 }), { minLength: 8, maxLength: 8 })
    .map((bytes) => bytes.map((b) => b.toString(16).padStart(2, '0')).join(':'))
  fc.assert(
    fc.property(fc.array(address, { maxLength: 30 }), (addresses) => {
      const ours = [...addresses].sort(byCodeUnits)
      const reference = [...addresses].sort((a, b) => a.localeCompare(b))
      return ours.join() === reference.join()
    }),
    { seed: 30, numRuns: 500 },
  )
  t.equal(byCodeUnits('00:0d:6f:00:00:01:00:0a', '00:0d:6f:00:00:01:00:09'), 1)
  t.equal(byCodeUnits('a', 'a'), 0)
})

t.test('store ids (letters and digits) sort exactly as localeCompare sorts them', async (t) => {
  const { default: fc } = await import('fast-check')
  const alphabet = 'abcABC019xyzXYZ'
  const id = fc.array(fc.constantFrom(...alphabet), { maxLength: 6 }).map((chars) => chars.join(''))
  fc.assert(
    fc.property(id, id, (a, b) => Math.sign(byLettersAndDigits(a, b)) === Math.sign(a.localeCompare(b))),
    { seed: 30, numRuns: 5000 },
  )
  const ids = fc.stringMatching(/^[A-Za-z0-9]{16}$/)
  fc.assert(
    fc.property(fc.array(ids, { maxLength: 20 }), (list) => [...list].sort(byLettersAndDigits).join() === [...list].sort((a, b) => a.localeCompare(b)).join()),
    { seed: 31, numRuns: 300 },
  )
  t.equal(byLettersAndDigits('aB', 'Ab'), -1, 'equal but for case: the first differing letter, lower case first')
  t.equal(byLettersAndDigits('9z', 'a0'), -1, 'digits before letters')
  t.equal(byLettersAndDigits('B', 'a'), 1, 'case ignored before anything else')
  t.equal(byLettersAndDigits('Ab', 'Ab'), 0)
})
