// GET/DELETE /api/v2/activeorders and /api/v2/activeorders/:id
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

async function setup() {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  await gw.services.settings.update({ timezone: '+01:00' })
  const token = await gw.issueToken()
  const create = (body: Record<string, unknown>) => gw.json('POST /api/v2/activeorders', { token, body })
  return { gw, token, create }
}

t.test('GET lists active orders with an integer count and v2 fields in gateway-local time', async (t) => {
  const { gw, token, create } = await setup()
  t.same((await gw.json('GET /api/v2/activeorders', { token })).body, { status: 200, returnCode: 5, count: 0, items: [] })
  await create({ name: 1, orderType: 'TO_GO' })
  await gw.clock.advance(61_000)
  await create({ name: 2, orderType: 'ON_PREMISE', locationName: 4 })
  const { status, body } = await gw.json('GET /api/v2/activeorders', { token })
  t.equal(status, 200)
  t.equal(body.count, 2)
  t.match(body.items, [
    { name: '1', created: '2026-11-22T13:00:00', stateChanged: '2026-11-22T13:00:00', elapsedTime: 61, paged: false, locationName: '' },
    { name: '2', created: '2026-11-22T13:01:01', state: 'located', locationName: '4', elapsedTime: 0 },
  ])
})

t.test('GET /:id by number or UUID (any case): code 6; -7 for a bad identifier, -6 when not active', async (t) => {
  const { gw, token, create } = await setup()
  const { body: created } = await create({ name: 12, orderType: 'TO_GO' })
  const uuid = created.activeorder.uuid as string
  // A percent-encoded identifier is decoded (%31%32 is 12).
  for (const id of ['12', '%31%32', uuid, uuid.toUpperCase(), encodeURIComponent(uuid).replace('-', '%2D')]) {
    const { status, body } = await gw.json(`GET /api/v2/activeorders/${id}`, { token })
    t.equal(status, 200, id)
    t.match(body, { returnCode: 6, activeorder: { uuid, name: '12' } })
  }
  for (const id of ['abc', '0', '-1', '1.5', `${uuid}0`, '99999999999', '%20', '%31%2F', '%E0%A4%A', '%30']) {
    const { status, body } = await gw.json(`GET /api/v2/activeorders/${id}`, { token })
    t.same([status, body.returnCode], [400, -7], `bad id ${id}`)
  }
  const missing = await gw.json('GET /api/v2/activeorders/13', { token })
  t.same([missing.status, missing.body.returnCode], [404, -6])
  const otherUuid = await gw.json('GET /api/v2/activeorders/00000000-0000-4000-8000-000000000000', { token })
  t.same([otherUuid.status, otherUuid.body.returnCode], [404, -6])
})

t.test('DELETE /:id clears into history (code 6, state cleared), then it is gone', async (t) => {
  const { gw, token, create } = await setup()
  const { body: created } = await create({ name: 5, orderType: 'TO_GO', locationName: 3 })
  await gw.clock.advance(90_000)
  const changes: string[] = []
  gw.services.changes.on('recorded', (c) => changes.push(`${c.type}:${c.order.state}`))
  const { status, body } = await gw.json(`DELETE /api/v2/activeorders/${created.activeorder.uuid}`, { token })
  t.equal(status, 200)
  t.match(body, { returnCode: 6, activeorder: { name: '5', state: 'cleared', paged: false, stateChanged: '2026-11-22T13:01:30' } })
  t.same(changes, ['ORDER_CLEARED:cleared'])
  t.match(gw.services.history.get(created.activeorder.uuid), {
    name: 5,
    orderType: 'TO_GO',
    locationName: 3,
    orderStarted: Date.parse('2026-11-22T12:00:00Z'),
    orderLocated: Date.parse('2026-11-22T12:00:00Z'),
    orderCleared: Date.parse('2026-11-22T12:01:30Z'),
  })
  t.same((await gw.json('DELETE /api/v2/activeorders/5', { token })).body.returnCode, -6)
  t.same((await gw.json('DELETE /api/v2/activeorders/x', { token })).body.returnCode, -7)
  t.equal((await gw.json('GET /api/v2/activeorders', { token })).body.count, 0)
})

t.test('an unlocated order goes to history with null location', async (t) => {
  const { gw, token, create } = await setup()
  const { body: created } = await create({ name: 6, orderType: 'ON_PREMISES' })
  await gw.json('DELETE /api/v2/activeorders/6', { token })
  t.match(gw.services.history.get(created.activeorder.uuid), { locationName: null, orderLocated: null, orderType: 'ON_PREMISE' })
})

t.test('DELETE clears every active order: code 5, integer count, items cleared; their paging stops', async (t) => {
  const { gw, token, create } = await setup()
  gw.radio.startTracker(1)
  await gw.services.orders.idle()
  await create({ name: 2, orderType: 'TO_GO' })
  await gw.json('POST /api/v2/activeorders/1/page', { token, body: { tracking: true } })
  t.ok(gw.radio.isBuzzing(1))
  const { status, body } = await gw.json('DELETE /api/v2/activeorders', { token })
  t.equal(status, 200)
  t.match(body, {
    returnCode: 5,
    count: 2,
    items: [
      { name: '1', state: 'cleared' },
      { name: '2', state: 'cleared' },
    ],
  })
  t.equal(gw.services.orders.list().length, 0)
  t.notOk(gw.radio.isBuzzing(1), 'clearing stopped the paging')
  await gw.clock.advance(60_000)
  t.notOk(gw.radio.isBuzzing(1), 'and no refresh came back')
  t.same((await gw.json('DELETE /api/v2/activeorders', { token })).body, { status: 200, returnCode: 5, count: 0, items: [] })
})

t.test('v2 active-order routes are marked bearer', async (t) => {
  const { manifest } = await import('../../../functions/_manifest.gen.ts')
  const routes = manifest.filter((e) => e.path.startsWith('/api/v2/activeorders'))
  t.equal(routes.length, 8)
  for (const route of routes) t.equal(route.auth, 'bearer', `${route.method} ${route.path}`)
})
