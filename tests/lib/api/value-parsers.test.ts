import t from 'tap'
import { nonNegativeIntText, orderRef, parseJsonObject, positiveInt, uuid } from '../../../lib/api/value-parsers.ts'
import type { DomainError } from '../../../lib/kernel/errors.ts'

const kindOf = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    return (error as DomainError).kind
  }
  return 'no error'
}

t.test('positiveInt takes numbers and digit strings only', async (t) => {
  t.equal(positiveInt(12, 'ORDER_NAME_INVALID'), 12)
  t.equal(positiveInt('12', 'ORDER_NAME_INVALID'), 12)
  for (const bad of [0, -1, 1.5, '1.5', '', ' 12', '0x10', '1e3', null, true, [], {}, 2 ** 31, '99999999999']) {
    t.equal(
      kindOf(() => positiveInt(bad, 'LOCATION_INVALID')),
      'LOCATION_INVALID',
      JSON.stringify(bad),
    )
  }
})

t.test('nonNegativeIntText', async (t) => {
  t.equal(nonNegativeIntText('0', 'OFFSET_INVALID'), 0)
  t.equal(
    kindOf(() => nonNegativeIntText('-1', 'OFFSET_INVALID')),
    'OFFSET_INVALID',
  )
})

t.test('orderRef: positive integer or UUID, else -7', async (t) => {
  t.same(orderRef('42'), { name: 42 })
  t.same(orderRef('6F9619FF-8B86-D011-B42D-00C04FC964FF'), { uuid: '6f9619ff-8b86-d011-b42d-00c04fc964ff' })
  // v1 clear and page take a number only: their refusal says so (Order name must be a positive integer).
  t.equal(
    kindOf(() => orderRef('6f9619ff-8b86-d011-b42d-00c04fc964ff', { allowUuid: false })),
    'ORDER_NAME_INVALID',
  )
  for (const bad of ['0', 'abc', '-3', '4.2', undefined])
    t.equal(
      kindOf(() => orderRef(bad)),
      'ORDER_REF_INVALID',
    )
})

t.test('uuid', async (t) => {
  t.equal(uuid('6F9619FF-8B86-D011-B42D-00C04FC964FF'), '6f9619ff-8b86-d011-b42d-00c04fc964ff')
  t.equal(
    kindOf(() => uuid('nope')),
    'UUID_INVALID',
  )
})

t.test('parseJsonObject refuses malformed, non-object, deep and operator/prototype input', async (t) => {
  t.same(parseJsonObject(''), {})
  t.same(parseJsonObject('{"name": 5}'), { name: 5 })
  let deep = '1'
  for (let i = 0; i < 40; i++) deep = `{"a":${deep}}`
  for (const bad of ['{', '[1]', '"text"', 'null', '{"$gt": 1}', '{"a": {"__proto__": {}}}', '{"constructor": 1}', deep]) {
    t.equal(
      kindOf(() => parseJsonObject(bad)),
      'JSON_INVALID',
      bad.slice(0, 30),
    )
  }
})
