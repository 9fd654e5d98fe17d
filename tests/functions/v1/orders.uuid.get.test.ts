import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { summary, uuidOf } from '../../lib/history/fixtures.ts'

t.test('v1 one historical order: {status, order}, 400 malformed, 404 unknown', async (t) => {
  const gw = await testGateway()
  await gw.services.settings.update({ timezone: 'Asia/Kolkata' })
  const stored = summary(5, { orderStarted: Date.parse('2026-11-22T10:00:00Z') })
  gw.services.history.insert(stored)
  const found = await gw.json(`GET /api/v1/orders/${stored.uuid}`)
  t.equal(found.status, 200)
  t.same(Object.keys(found.body).sort(), ['order', 'status'])
  t.match(found.body.order, { uuid: stored.uuid, type: 'ORDER_SUMMARY', orderStarted: '2026-11-22T15:30:00+05:30' })
  const bad = await gw.json('GET /api/v1/orders/42')
  t.same(bad.body, { status: 400, message: 'Order UUID is malformed' })
  const missing = await gw.json(`GET /api/v1/orders/${uuidOf(6)}`)
  t.equal(missing.status, 404)
  t.notOk('returnCode' in missing.body)
})
