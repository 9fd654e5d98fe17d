import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { summary, uuidOf } from '../../lib/history/fixtures.ts'

t.test('v2 one historical order: code 9, any case, -27 malformed, -6 unknown', async (t) => {
  const gw = await testGateway()
  await gw.services.settings.update({ timezone: 'UTC' })
  const token = await gw.issueToken()
  const stored = summary(5, { orderStarted: Date.parse('2026-11-22T10:00:00Z'), locationName: 9 })
  gw.services.history.insert(stored)
  const found = await gw.json(`GET /api/v2/orders/${stored.uuid}`, { token })
  t.equal(found.status, 200)
  t.same(found.body, {
    status: 200,
    returnCode: 9,
    order: {
      uuid: stored.uuid,
      name: String(stored.name),
      type: 'ORDER_SUMMARY',
      orderType: stored.orderType,
      locationName: '9',
      orderStarted: '2026-11-22T10:00:00+00:00',
      orderLocated: null,
      orderCleared: '2026-11-22T10:05:00+00:00',
    },
  })
  const upper = await gw.json(`GET /api/v2/orders/${stored.uuid.toUpperCase()}`, { token })
  t.equal(upper.body.order.uuid, stored.uuid)
  for (const bad of ['12', 'not-a-uuid', `${stored.uuid}0`, stored.uuid.replaceAll('-', '')]) {
    const { status, body } = await gw.json(`GET /api/v2/orders/${bad}`, { token })
    t.equal(status, 400, bad)
    t.equal(body.returnCode, -27, bad)
  }
  const missing = await gw.json(`GET /api/v2/orders/${uuidOf(6)}`, { token })
  t.equal(missing.status, 404)
  t.equal(missing.body.returnCode, -6)
  const noToken = await gw.json(`GET /api/v2/orders/${stored.uuid}`)
  t.equal(noToken.status, 401)
})
