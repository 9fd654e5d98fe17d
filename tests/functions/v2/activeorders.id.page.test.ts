// POST/GET/DELETE /api/v2/activeorders/:id/page
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

async function setup() {
  const gw = await testGateway()
  const token = await gw.issueToken()
  gw.radio.startTracker(3)
  await gw.services.orders.idle()
  return { gw, token }
}

t.test('POST pages (code 7, paged true); GET reports it; the tracker buzzes until cancelled', async (t) => {
  const { gw, token } = await setup()
  const { status, body } = await gw.json('POST /api/v2/activeorders/3/page', { token })
  t.equal(status, 200)
  t.match(body, { returnCode: 7, activeorder: { name: '3', paged: true } })
  t.same((await gw.json('GET /api/v2/activeorders/3/page', { token })).body, { status: 200, returnCode: 7, paged: true })
  await gw.clock.advance(10 * 60_000)
  t.ok(gw.radio.isBuzzing(3), 'tracking (the default) keeps re-sending the lease')
  const cancel = await gw.json('DELETE /api/v2/activeorders/3/page', { token })
  t.equal(cancel.status, 200)
  t.match(cancel.body, { returnCode: 1002, message: String, activeorder: { paged: false } })
  t.notOk(gw.radio.isBuzzing(3))
  t.same((await gw.json('GET /api/v2/activeorders/3/page', { token })).body.paged, false)
  const again = await gw.json('DELETE /api/v2/activeorders/3/page', { token })
  t.match(again.body, { status: 200, returnCode: 1003 })
})

t.test('tracking false pages once: about 60 s, then the order is no longer paged (ORDER_MODIFIED)', async (t) => {
  const { gw, token } = await setup()
  const changes: string[] = []
  gw.services.changes.on('recorded', (c) => changes.push(`${c.type}:${c.order.paged}`))
  for (const tracking of [false, 'false']) {
    await gw.json('POST /api/v2/activeorders/3/page', { token, body: { tracking } })
    await gw.clock.advance(59_000)
    t.ok(gw.radio.isBuzzing(3))
    t.equal(gw.services.orders.get({ name: 3 }).paged, true)
    await gw.clock.advance(1_000)
    await gw.services.orders.idle()
    t.notOk(gw.radio.isBuzzing(3))
    t.equal(gw.services.orders.get({ name: 3 }).paged, false)
  }
  t.same(changes, ['ORDER_PAGED:true', 'ORDER_MODIFIED:false', 'ORDER_PAGED:true', 'ORDER_MODIFIED:false'])
})

t.test('tracking accepts true/"true"; anything else is -31', async (t) => {
  const { gw, token } = await setup()
  t.equal((await gw.json('POST /api/v2/activeorders/3/page', { token, body: { tracking: 'true' } })).body.returnCode, 7)
  for (const tracking of ['yes', 1, 0, 'TRUE', {}]) {
    const { status, body } = await gw.json('POST /api/v2/activeorders/3/page', { token, body: { tracking } })
    t.same([status, body.returnCode], [400, -31], JSON.stringify(tracking))
  }
  t.same((await gw.json('POST /api/v2/activeorders/3/page', { token, rawBody: '{' })).body.returnCode, -31)
})

t.test('an order without a tracker: page -13, cancel -14; unknown -6; bad id -7', async (t) => {
  const { gw, token } = await setup()
  await gw.json('POST /api/v2/activeorders', { token, body: { name: 40, orderType: 'TO_GO' } })
  t.match(await gw.json('POST /api/v2/activeorders/40/page', { token }), { status: 404, body: { returnCode: -13 } })
  t.match(await gw.json('DELETE /api/v2/activeorders/40/page', { token }), { status: 404, body: { returnCode: -14 } })
  t.equal(gw.services.orders.get({ name: 40 }).paged, false)
  for (const method of ['POST', 'GET', 'DELETE']) {
    t.match(await gw.json(`${method} /api/v2/activeorders/41/page`, { token }), { status: 404, body: { returnCode: -6 } }, method)
    t.match(await gw.json(`${method} /api/v2/activeorders/four/page`, { token }), { status: 400, body: { returnCode: -7 } }, method)
  }
})

t.test('clearing a paged order stops its tracker', async (t) => {
  const { gw, token } = await setup()
  await gw.json('POST /api/v2/activeorders/3/page', { token })
  gw.radio.clearTracker(3)
  await gw.services.orders.idle()
  t.notOk(gw.radio.isBuzzing(3))
  t.notOk(gw.services.paging.isPaging(gw.radio.status().trackers[2].address))
})
