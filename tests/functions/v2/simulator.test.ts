// Extension: the simulator endpoints the board drives.
import t from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { buildRouter } from '../../../runtime/host/router.ts'
import { makeRequest, testGateway } from '../../helpers/gateway.ts'
import { checkedRouter } from '../../helpers/documented-responses.ts'
import { createRadio } from '../../../lib/radio/create.ts'
import type { Radio } from '../../../lib/radio/radio.ts'

t.test('start, place, clear drive the whole order flow; status shows positions and buzzing', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const status0 = await gw.json('GET /api/v2/simulator', { token })
  t.equal(status0.status, 200)
  t.equal(status0.body.returnCode, 21)
  t.match(status0.body.simulator, {
    up: true,
    tables: Array,
    starters: [
      { name: 'dine-in', orderType: 'ON_PREMISE' },
      { name: 'to-go', orderType: 'TO_GO' },
    ],
    clearers: ['pass'],
  })
  t.match(status0.body.simulator.trackers[0], { number: 1, address: /^([0-9a-f]{2}:){7}[0-9a-f]{2}$/, position: { at: 'rack' }, buzzing: false, order: null })

  const started = await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 4, toGo: true } })
  t.match(started.body, {
    returnCode: 21,
    tracker: { number: 4, position: { at: 'guest', orderType: 'TO_GO' } },
    activeorder: { name: '4', state: 'started', orderType: 'TO_GO' },
  })
  const placed = await gw.json('POST /api/v2/simulator/place', { token, body: { tracker: 4, table: 12 } })
  t.match(placed.body, { tracker: { position: { at: 'table', table: 12 } }, activeorder: { state: 'located', locationName: '12' } })
  await gw.json('POST /api/v2/activeorders/4/page', { token })
  const status1 = await gw.json('GET /api/v2/simulator', { token })
  t.match(status1.body.simulator.trackers[3], { buzzing: true, order: { name: 4, state: 'located' } })
  const cleared = await gw.json('POST /api/v2/simulator/clear', { token, body: { tracker: 4 } })
  t.match(cleared.body, { tracker: { position: { at: 'rack' }, buzzing: false, order: null } })
  t.equal(gw.services.orders.list().length, 0)
  t.ok(gw.services.history.has(started.body.activeorder.uuid))
})

t.test('bad input is 400 -38 and changes nothing', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const cases: [string, unknown][] = [
    ['POST /api/v2/simulator/start', { tracker: 0 }],
    ['POST /api/v2/simulator/start', { tracker: 999 }],
    ['POST /api/v2/simulator/start', { tracker: 1, toGo: 'perhaps' }],
    ['POST /api/v2/simulator/start', {}],
    ['POST /api/v2/simulator/place', { tracker: 1, table: 999 }],
    ['POST /api/v2/simulator/place', { tracker: 1 }],
    ['POST /api/v2/simulator/clear', { tracker: 'one' }],
  ]
  for (const [route, body] of cases) {
    const { status, body: answer } = await gw.json(route, { token, body })
    t.same([status, answer.returnCode], [400, -38], `${route} ${JSON.stringify(body)}`)
  }
  t.equal(gw.services.orders.list().length, 0)
  t.equal(gw.services.trackers.list().length, 0)
})

t.test('404 -5 when the radio is not simulated', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  // Stand in a non-simulated radio behind the same simulator service.
  const { SimulatorService } = await import('../../../lib/orders/simulator.ts')
  const other = { kind: 'zigbee' } as unknown as Radio
  ;(gw.services as { simulator: unknown }).simulator = new SimulatorService({ radio: other, orders: gw.services.orders })
  // Functions get their services when the router is built: build one over the changed graph.
  const router = checkedRouter(buildRouter(manifest, gw.services))
  for (const [route, body] of [
    ['GET /api/v2/simulator', undefined],
    ['POST /api/v2/simulator/start', { tracker: 1 }],
    ['POST /api/v2/simulator/place', { tracker: 1, table: 1 }],
    ['POST /api/v2/simulator/clear', { tracker: 1 }],
  ] as const) {
    const response = await router.fetch(makeRequest(route, { token, body }))
    const answer = (await response.json()) as { returnCode: number }
    t.same([response.status, answer.returnCode], [404, -5], route)
  }
})

t.test('createRadio: simulated by default', async (t) => {
  const gw = await testGateway()
  const radio = await createRadio(gw.services.config, { clock: gw.clock, log: gw.logs.log })
  t.equal(radio.kind, 'simulated')
})

t.test('impossible moves are refused with a message and change nothing', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 5 } })
  const again = await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 5, toGo: true } })
  t.same([again.status, again.body.returnCode], [400, -38])
  t.match(again.body.message, /tracker 5 already has order 5 \(started\): clear it at the pass first/)
  t.match(gw.services.orders.get({ name: 5 }), { orderType: 'ON_PREMISE', state: 'started' }, 'the order is untouched')
  const idle = await gw.json('POST /api/v2/simulator/place', { token, body: { tracker: 6, table: 3 } })
  t.same([idle.status, idle.body.returnCode], [400, -38])
  t.match(idle.body.message, /tracker 6 has no order: start it on a starter first/)
  t.match(
    (await gw.json('GET /api/v2/simulator', { token })).body.simulator.trackers[5],
    { number: 6, position: { at: 'rack' } },
    'tracker 6 stays in the rack',
  )
  t.equal(gw.services.orders.list().length, 1)
})

t.test('the simulation follows the orders: after a restart and after a clear on the board', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 2 } })
  await gw.json('POST /api/v2/simulator/place', { token, body: { tracker: 2, table: 9 } })
  await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 3, toGo: true } })
  // A restart: a fresh simulated radio (every tracker in the rack) over the same orders.
  const { SimulatorService } = await import('../../../lib/orders/simulator.ts')
  const { SimulatedRadio } = await import('../../../lib/radio/simulated.ts')
  const fresh = new SimulatedRadio({ clock: gw.clock, trackers: 10 })
  const restarted = new SimulatorService({ radio: fresh, orders: gw.services.orders })
  const trackers = restarted.status().trackers
  t.match(trackers[1], { position: { at: 'table', table: 9 }, order: { name: 2 } })
  t.match(trackers[2], { position: { at: 'guest', orderType: 'TO_GO' }, order: { name: 3 } })
  t.match(trackers[0], { position: { at: 'rack' }, order: null })
  // Cleared from the board (the API): the tracker is back in the rack, ready to start again.
  await gw.json('DELETE /api/v2/activeorders/2', { token })
  t.match((await gw.json('GET /api/v2/simulator', { token })).body.simulator.trackers[1], { position: { at: 'rack' }, order: null })
  t.equal((await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 2 } })).status, 200)
})

t.test('radio.trackers sizes the simulated restaurant', async (t) => {
  const gw = await testGateway({ radio: { kind: 'simulated', trackers: 120 } })
  const token = await gw.issueToken()
  t.equal((await gw.json('GET /api/v2/simulator', { token })).body.simulator.trackers.length, 120)
  t.equal((await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 120 } })).status, 200)
  t.equal((await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 121 } })).body.returnCode, -38)
  t.equal((await testGateway()).radio.status().trackers.length, 50, '50 by default')
})
