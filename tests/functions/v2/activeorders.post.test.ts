import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

async function setup() {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  const token = await gw.issueToken()
  return { gw, token }
}

t.test('POST creates a started order (code 5) with the v2 fields, ON_PREMISES stored as ON_PREMISE', async (t) => {
  const { gw, token } = await setup()
  const { status, body } = await gw.json('POST /api/v2/activeorders', { token, body: { name: '12', orderType: 'ON_PREMISES' } })
  t.equal(status, 200)
  t.equal(body.returnCode, 5)
  t.match(body.activeorder, {
    uuid: /^[0-9a-f-]{36}$/,
    name: '12',
    orderType: 'ON_PREMISE',
    state: 'started',
    locationName: '',
    paged: false,
    elapsedTime: 0,
    created: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/,
    stateChanged: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/,
  })
  t.notOk('stateStarted' in body.activeorder, 'v2 has no stateStarted')
  t.equal(gw.services.orders.list().length, 1)
  t.equal(gw.services.orders.list()[0].tracker, null, 'v2 creates without a tracker')
})

t.test('with locationName the order is located at once', async (t) => {
  const { gw, token } = await setup()
  const { body } = await gw.json('POST /api/v2/activeorders', { token, body: { name: 3, orderType: 'TO_GO', locationName: '7' } })
  t.match(body.activeorder, { state: 'located', locationName: '7', orderType: 'TO_GO' })
})

t.test('an order already active answers 1009 (was started) or 1010 (was located) with the updated order', async (t) => {
  const { gw, token } = await setup()
  await gw.json('POST /api/v2/activeorders', { token, body: { name: 4, orderType: 'TO_GO' } })
  await gw.clock.advance(5000)
  const again = await gw.json('POST /api/v2/activeorders', { token, body: { name: 4, orderType: 'ON_PREMISE', locationName: 9 } })
  t.equal(again.status, 200)
  t.equal(again.body.returnCode, 1009, 'was started before this request')
  t.match(again.body.activeorder, { state: 'located', locationName: '9', orderType: 'ON_PREMISE', elapsedTime: 5 })
  const third = await gw.json('POST /api/v2/activeorders', { token, body: { name: 4, orderType: 'ON_PREMISE' } })
  t.equal(third.body.returnCode, 1010)
  t.equal(gw.services.orders.list().length, 1, 'no duplicate')
})

t.test('a known tracker with that number is bound to the new order', async (t) => {
  const { gw, token } = await setup()
  gw.radio.startTracker(6)
  await gw.services.orders.idle()
  await gw.json('DELETE /api/v2/activeorders/6', { token })
  const { body } = await gw.json('POST /api/v2/activeorders', { token, body: { name: 6, orderType: 'TO_GO' } })
  t.equal(body.returnCode, 5)
  t.equal(gw.services.orders.get({ name: 6 }).tracker, gw.radio.status().trackers[5].address)
})

const bad: [string, unknown, number][] = [
  ['name missing', { orderType: 'TO_GO' }, -8],
  ['name null', { name: null, orderType: 'TO_GO' }, -8],
  ['name zero', { name: 0, orderType: 'TO_GO' }, -9],
  ['name negative', { name: -3, orderType: 'TO_GO' }, -9],
  ['name float', { name: 1.5, orderType: 'TO_GO' }, -9],
  ['name "1e3"', { name: '1e3', orderType: 'TO_GO' }, -9],
  ['name " 1"', { name: ' 1', orderType: 'TO_GO' }, -9],
  ['name object', { name: { $gt: 1 }, orderType: 'TO_GO' }, -31],
  ['name bool', { name: true, orderType: 'TO_GO' }, -9],
  ['orderType missing', { name: 1 }, -11],
  ['orderType bad', { name: 1, orderType: 'DELIVERY' }, -12],
  ['orderType lower case', { name: 1, orderType: 'to_go' }, -12],
  ['orderType number', { name: 1, orderType: 2 }, -12],
  ['locationName zero', { name: 1, orderType: 'TO_GO', locationName: 0 }, -10],
  ['locationName text', { name: 1, orderType: 'TO_GO', locationName: 'A1' }, -10],
]
for (const [what, body, code] of bad) {
  t.test(`400 ${code} when ${what}, nothing created`, async (t) => {
    const { gw, token } = await setup()
    const { status, body: answer } = await gw.json('POST /api/v2/activeorders', { token, body })
    t.equal(status, 400)
    t.match(answer, { status: 400, returnCode: code, message: String })
    t.equal(gw.services.orders.list().length, 0)
  })
}

t.test('malformed JSON is 400 -31', async (t) => {
  const { gw, token } = await setup()
  const { status, body } = await gw.json('POST /api/v2/activeorders', { token, rawBody: '{"name": 1,' })
  t.equal(status, 400)
  t.equal(body.returnCode, -31)
})

t.test('a created order is recorded as ORDER_CREATED, a later change as ORDER_MODIFIED', async (t) => {
  const { gw, token } = await setup()
  const seen: string[] = []
  gw.services.changes.on('recorded', (change) => seen.push(`${change.type}:${change.order.state}`))
  await gw.json('POST /api/v2/activeorders', { token, body: { name: 8, orderType: 'TO_GO' } })
  await gw.json('POST /api/v2/activeorders', { token, body: { name: 8, orderType: 'TO_GO' } })
  await gw.json('POST /api/v2/activeorders', { token, body: { name: 8, orderType: 'TO_GO', locationName: 2 } })
  t.same(seen, ['ORDER_CREATED:started', 'ORDER_MODIFIED:located'], 'an unchanged repeat records nothing')
})
