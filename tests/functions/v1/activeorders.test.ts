// The v1 active-order routes: no returnCode, v1 fields, v1 messages.
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

const post = (gw: Awaited<ReturnType<typeof testGateway>>, body: unknown, query = '') => gw.json(`POST /api/v1/activeorders${query}`, { body })

t.test('POST needs a tracker started on a starter unit, unless dummy_tracker_address=true', async (t) => {
  const gw = await testGateway()
  const refused = await post(gw, { name: 5 })
  t.same(refused, { status: 400, body: { status: 400, message: 'The tracker has never been started with a starter unit' }, headers: refused.headers })
  t.equal(gw.services.orders.list().length, 0)
  const { status, body } = await post(gw, { name: '5' }, '?dummy_tracker_address=true')
  t.equal(status, 200)
  t.notOk('returnCode' in body)
  t.match(body.activeorder, { name: '5', orderType: 'ON_PREMISE', state: 'started', paged: 'No', elapsedTime: 0, locationName: '', stateStarted: /T/ })
  t.notOk('stateChanged' in body.activeorder)
  t.equal(gw.services.orders.get({ name: 5 }).tracker, 'dummy-5')
})

t.test('POST binds the tracker captured by the starter; again it answers 200 with the updated order', async (t) => {
  const gw = await testGateway()
  gw.radio.startTracker(8, { toGo: true })
  await gw.services.orders.idle()
  gw.radio.clearTracker(8)
  await gw.services.orders.idle()
  const { status, body } = await post(gw, { name: 8, orderType: 'TO_GO' })
  t.equal(status, 200)
  t.match(body.activeorder, { name: '8', orderType: 'TO_GO', state: 'started' })
  t.equal(gw.services.orders.get({ name: 8 }).tracker, gw.services.trackers.byNumber(8)?.address)
  const again = await post(gw, { name: 8, locationName: 2 })
  t.equal(again.status, 200)
  t.match(again.body.activeorder, { state: 'located', locationName: '2', orderType: 'TO_GO' })
})

t.test('POST errors: 400 with a message, no returnCode', async (t) => {
  const gw = await testGateway()
  const cases: [unknown, string][] = [
    [{}, 'Order name is missing'],
    [{ name: 'x' }, 'Order name must be a positive integer'],
    [{ name: 0 }, 'Order name must be a positive integer'],
    [{ name: 1, locationName: -2 }, 'Location name must be a positive integer'],
    [{ name: 1, orderType: 'BAR' }, 'Order type must be TO_GO or ON_PREMISES'],
  ]
  for (const [body, message] of cases) {
    const answer = await post(gw, body, '?dummy_tracker_address=true')
    t.same(answer.body, { status: 400, message }, JSON.stringify(body))
  }
  t.same((await gw.json('POST /api/v1/activeorders', { rawBody: 'nope' })).body.status, 400)
  t.equal(gw.services.orders.list().length, 0)
})

t.test('GET lists with a string count; GET /:id by number or uuid', async (t) => {
  const gw = await testGateway()
  const { body: created } = await post(gw, { name: 3 }, '?dummy_tracker_address=true')
  await gw.clock.advance(7_000)
  const { body } = await gw.json('GET /api/v1/activeorders')
  t.same(Object.keys(body).sort(), ['count', 'items', 'status'])
  t.equal(body.count, '1')
  t.match(body.items, [{ name: '3', elapsedTime: 7, paged: 'No' }])
  for (const id of ['3', created.activeorder.uuid]) {
    t.match((await gw.json(`GET /api/v1/activeorders/${id}`)).body, { status: 200, activeorder: { name: '3' } })
  }
  t.same((await gw.json('GET /api/v1/activeorders/4')).body, { status: 404, message: 'The order is inactive or does not exist' })
  t.same((await gw.json('GET /api/v1/activeorders/x')).status, 400)
})

t.test('DELETE /:name clears by number only', async (t) => {
  const gw = await testGateway()
  const { body: created } = await post(gw, { name: 3 }, '?dummy_tracker_address=true')
  t.equal((await gw.json(`DELETE /api/v1/activeorders/${created.activeorder.uuid}`)).status, 400, 'v1 clears by number')
  const { status, body } = await gw.json('DELETE /api/v1/activeorders/3')
  t.equal(status, 200)
  t.match(body, { status: 200, activeorder: { name: '3', state: 'cleared', paged: 'No' } })
  t.ok(gw.services.history.has(created.activeorder.uuid))
  t.same((await gw.json('DELETE /api/v1/activeorders/3')).body, { status: 404, message: 'The order is inactive or does not exist' })
})

t.test('POST /:name/page pages (paged "Yes"); tracking as boolean or string; 404 when not active', async (t) => {
  const gw = await testGateway()
  gw.radio.startTracker(2)
  await gw.services.orders.idle()
  const { status, body } = await gw.json('POST /api/v1/activeorders/2/page', { body: { tracking: 'false' } })
  t.equal(status, 200)
  t.match(body.activeorder, { paged: 'Yes' })
  t.ok(gw.radio.isBuzzing(2))
  t.equal(gw.services.orders.get({ name: 2 }).tracking, false)
  t.same((await gw.json('POST /api/v1/activeorders/9/page', { body: {} })).body, { status: 404, message: 'The order is inactive or does not exist' })
  t.equal((await gw.json('POST /api/v1/activeorders/2/page', { body: { tracking: 'maybe' } })).status, 400)
})
