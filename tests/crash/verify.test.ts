// The crash test's rules on hand-made evidence: each must pass what is allowed and catch
// what is not, or the crash test could pass while proving nothing.
import t from 'tap'
import { checkDeliveries, checkExpectedArrived, checkRecoveredState, checkRegistrations, type Delivery, type ModelState, prng } from './verify.ts'

function delivery(seq: number, fields: Partial<Delivery> = {}): Delivery {
  const uuid = fields.uuid ?? 'u1'
  const changeType = fields.changeType ?? 'ORDER_MODIFIED'
  return {
    path: '/main',
    id: `msg_x_${seq}`,
    seq,
    body: JSON.stringify({ seq, uuid, changeType }),
    uuid,
    changeType,
    state: 'started',
    locationName: '',
    ...fields,
  }
}

t.test('checkDeliveries: increasing seq and redeliveries pass; reuse and going back fail', async (t) => {
  t.same(checkDeliveries([delivery(1), delivery(2), delivery(2), delivery(5)]), { problems: [], duplicates: 1 })
  t.same(checkDeliveries([delivery(3), delivery(4), delivery(3)]), { problems: [], duplicates: 1 }, 'an older webhook repeated as it was')
  t.same(checkDeliveries([delivery(1), delivery(1, { path: '/other' })]).problems, [], 'one seq to several URLs')

  t.match(checkDeliveries([delivery(2), delivery(1)]).problems, [/seq 1 arrived after seq 2/])
  t.match(checkDeliveries([delivery(1), delivery(1, { body: '{"other":1}' })]).problems, [
    /seq 1 was used for two different changes/,
    /redelivered with a different body/,
  ])
  t.match(
    checkDeliveries([delivery(1), delivery(1, { path: '/other', id: 'msg_y_1' })]).problems,
    [/seq 1 was used for two different changes/],
    'across URLs too',
  )
})

t.test('checkExpectedArrived: acknowledged changes must arrive, per order in order', async (t) => {
  const arrived = [
    delivery(1, { changeType: 'ORDER_CREATED' }),
    delivery(2, { changeType: 'ORDER_MODIFIED', locationName: '4' }),
    delivery(3, { changeType: 'ORDER_MODIFIED', locationName: '7', uuid: 'u2' }),
    delivery(4, { changeType: 'ORDER_CLEARED', state: 'cleared', locationName: '4' }),
    delivery(2, { changeType: 'ORDER_MODIFIED', locationName: '4' }),
  ]
  t.same(
    checkExpectedArrived(
      [
        { uuid: 'u1', changeType: 'ORDER_CREATED', op: 'create' },
        { uuid: 'u1', changeType: 'ORDER_CLEARED', state: 'cleared', locationName: '4', op: 'clear' },
      ],
      arrived,
    ),
    [],
    'a change in between (unacknowledged or from the radio) is allowed',
  )
  t.match(checkExpectedArrived([{ uuid: 'u1', changeType: 'ORDER_PAGED', op: 'page 1' }], arrived), [/acknowledged page 1 \(ORDER_PAGED of u1\) never reached/])
  t.match(
    checkExpectedArrived([{ uuid: 'u1', changeType: 'ORDER_MODIFIED', locationName: '9', op: 'locate' }], arrived),
    [/never reached/],
    'the location must match',
  )
  t.match(
    checkExpectedArrived(
      [
        { uuid: 'u1', changeType: 'ORDER_CLEARED', op: 'clear' },
        { uuid: 'u1', changeType: 'ORDER_CREATED', op: 'create' },
      ],
      arrived,
    ),
    [/create .* out of order/],
    'order within one uuid counts',
  )
})

const u = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

function model(fields: Partial<ModelState> = {}): ModelState {
  return {
    active: new Map([[1, { uuid: u(1), locationName: '3' }]]),
    cleared: new Map([[u(2), { name: 2, locationName: '' }]]),
    created: new Set([u(1), u(2)]),
    names: new Set([1, 2, 3]),
    ...fields,
  }
}

t.test('checkRecoveredState: what survives a crash', async (t) => {
  const active = [{ uuid: u(1), name: 1, locationName: '3' }]
  const history = [{ uuid: u(2), name: 2, locationName: '' }]
  t.same(checkRecoveredState(model(), [], active, history), [], 'everything acknowledged is there')

  t.match(checkRecoveredState(model(), [], [], history), [/acknowledged order 1 .* is gone/, /neither active nor in history/])
  t.same(
    checkRecoveredState(model(), [{ kind: 'clear', name: 1 }], [], [...history, { uuid: u(1), name: 1, locationName: '3' }]),
    [],
    'a clear in flight may have happened',
  )
  t.match(checkRecoveredState(model(), [], [], [...history, { uuid: u(1), name: 1, locationName: '3' }]), [/is gone \(cleared with no clear in flight\)/])

  t.match(checkRecoveredState(model(), [], [{ ...active[0]!, locationName: '5' }], history), [/location "5", acknowledged "3"/])
  t.same(
    checkRecoveredState(model(), [{ kind: 'locate', name: 1, locationName: '5' }], [{ ...active[0]!, locationName: '5' }], history),
    [],
    'or the location in flight',
  )

  t.match(checkRecoveredState(model(), [], active, []), [/acknowledged clear of 2 .* not in history/, /neither active nor in history/])
  t.match(checkRecoveredState(model(), [], active, [...history, ...history]), [/in history 2 times/])
  t.match(checkRecoveredState(model(), [], [...active, { uuid: u(2), name: 2, locationName: '' }], history), [/both active and in history/, /active again/])
  t.match(checkRecoveredState(model(), [], active, [{ uuid: u(2), name: 2, locationName: '8' }]), [/history of .* has location "8", acknowledged ""/])

  const stranger = { uuid: u(3), name: 3, locationName: '' }
  t.match(checkRecoveredState(model(), [], [...active, stranger], history), [/order 3 .* never acknowledged nor in flight/])
  t.same(checkRecoveredState(model(), [{ kind: 'create', name: 3 }], [...active, stranger], history), [], 'a create in flight may have happened')
  t.same(
    checkRecoveredState(model(), [], [...active, { uuid: u(9), name: 99, locationName: '' }], history),
    [],
    'names the harness does not drive are not its business',
  )
  t.match(checkRecoveredState(model(), [], [...active, { uuid: u(4), name: 1, locationName: '' }], history), [/2 active orders named 1/, /never acknowledged/])
})

t.test('checkRegistrations: acknowledged registrations and removals hold', async (t) => {
  const acked = new Map([
    ['http://a/1', true],
    ['http://a/2', false],
  ])
  t.same(checkRegistrations(acked, new Set(), ['http://a/1']), [])
  t.match(checkRegistrations(acked, new Set(), []), [/registration of http:\/\/a\/1 is not listed/])
  t.match(checkRegistrations(acked, new Set(), ['http://a/1', 'http://a/2']), [/removal of http:\/\/a\/2 is undone/])
  t.same(checkRegistrations(acked, new Set(['http://a/1', 'http://a/2']), ['http://a/2']), [], 'either way while in flight')
})

t.test('prng: the same seed gives the same sequence, in [0, 1)', async (t) => {
  const a = prng(42)
  const b = prng(42)
  const values = Array.from({ length: 1000 }, () => a())
  t.same(
    values,
    Array.from({ length: 1000 }, () => b()),
  )
  t.ok(values.every((v) => v >= 0 && v < 1))
  t.not(prng(43)(), prng(42)())
  t.ok(new Set(values).size > 990, 'spread out')
})
