import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { uuidOf } from '../../lib/history/fixtures.ts'

async function setup() {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  await gw.services.settings.update({ timezone: 'UTC' })
  const token = (await gw.services.tokens.issue('wall', 'screen')).token
  return { gw, token }
}

t.test('recall: the cleared order is active again with its number, type, table and original start (code 9)', async (t) => {
  const { gw, token } = await setup()
  const created = await gw.json('POST /api/v2/activeorders', { token, body: { name: 7, orderType: 'TO_GO' } })
  await gw.clock.advance(120_000)
  await gw.json('POST /api/v2/activeorders', { token, body: { name: 7, orderType: 'TO_GO', locationName: 4 } })
  await gw.clock.advance(480_000)
  const cleared = await gw.json(`DELETE /api/v2/activeorders/${created.body.activeorder.uuid}`, { token })
  t.equal(cleared.status, 200)
  await gw.clock.advance(30_000)

  const { status, body } = await gw.json(`POST /api/v2/orders/${created.body.activeorder.uuid}/recall`, { token })
  t.equal(status, 200)
  t.equal(body.returnCode, 9)
  t.match(body.activeorder, {
    name: '7',
    orderType: 'TO_GO',
    state: 'located',
    locationName: '4',
    created: '2026-11-22T12:00:00',
    stateChanged: '2026-11-22T12:02:00',
    elapsedTime: 630,
  })
  t.not(body.activeorder.uuid, created.body.activeorder.uuid, 'a new active order: the cleared one stays in the history as it was')
  const history = await gw.json(`GET /api/v2/orders/${created.body.activeorder.uuid}`, { token })
  t.equal(history.body.order.orderCleared, '2026-11-22T12:10:00+00:00', 'the first clear is kept')

  // Cleared again: its history row starts when the guest first ordered.
  await gw.clock.advance(60_000)
  await gw.json(`DELETE /api/v2/activeorders/${body.activeorder.uuid}`, { token })
  const again = await gw.json(`GET /api/v2/orders/${body.activeorder.uuid}`, { token })
  t.match(again.body.order, { orderStarted: '2026-11-22T12:00:00+00:00', orderLocated: '2026-11-22T12:02:00+00:00', orderCleared: '2026-11-22T12:11:30+00:00' })
})

t.test('recall while an order with that number is active: that order, unchanged, with 1009 or 1010', async (t) => {
  const { gw, token } = await setup()
  const first = await gw.json('POST /api/v2/activeorders', { token, body: { name: 5, orderType: 'ON_PREMISE', locationName: 2 } })
  await gw.json(`DELETE /api/v2/activeorders/${first.body.activeorder.uuid}`, { token })
  await gw.clock.advance(10_000)
  const second = await gw.json('POST /api/v2/activeorders', { token, body: { name: 5, orderType: 'TO_GO' } })
  const { status, body } = await gw.json(`POST /api/v2/orders/${first.body.activeorder.uuid}/recall`, { token })
  t.equal(status, 200)
  t.equal(body.returnCode, 1009)
  t.same(body.activeorder, second.body.activeorder, 'the active order is left as it was')
  await gw.json('POST /api/v2/activeorders', { token, body: { name: 5, orderType: 'TO_GO', locationName: 3 } })
  const located = await gw.json(`POST /api/v2/orders/${first.body.activeorder.uuid}/recall`, { token })
  t.equal(located.body.returnCode, 1010)
  t.equal(located.body.activeorder.locationName, '3')
})

t.test('recall of an unknown or malformed UUID changes nothing; read tokens may not recall', async (t) => {
  const { gw, token } = await setup()
  const missing = await gw.json(`POST /api/v2/orders/${uuidOf(6)}/recall`, { token })
  t.equal(missing.status, 404)
  t.equal(missing.body.returnCode, -6)
  const bad = await gw.json('POST /api/v2/orders/12/recall', { token })
  t.equal(bad.status, 400)
  t.equal(bad.body.returnCode, -27)
  const reader = (await gw.services.tokens.issue('reader', 'read')).token
  const first = await gw.json('POST /api/v2/activeorders', { token, body: { name: 8, orderType: 'TO_GO' } })
  await gw.json(`DELETE /api/v2/activeorders/${first.body.activeorder.uuid}`, { token })
  const denied = await gw.json(`POST /api/v2/orders/${first.body.activeorder.uuid}/recall`, { token: reader })
  t.equal(denied.status, 403)
  t.equal(gw.services.orders.list().length, 0, 'nothing started')
})
