// A step of the system clock mended on the whole service graph (testGateway with a
// SteppingClock): active orders (in memory and stored), the clock, the history rows written
// since start-up and the presented history pages move together.
import t from 'tap'
import { buildClockWatch } from '../../../runtime/wiring/clock-wiring.ts'
import { shiftOrderTimes } from '../../../lib/orders/clock-mend.ts'
import type { ActiveOrder } from '../../../lib/orders/types.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'

const hour = 3_600_000

t.test('shiftOrderTimes moves every time an order carries, and only those', async (t) => {
  const order = { created: 1000, stateChanged: 2000, located: null, pagedAt: 3000, name: 1 } as unknown as ActiveOrder
  shiftOrderTimes(order, 500)
  t.match(order, { created: 1500, stateChanged: 2500, located: null, pagedAt: 3500, name: 1 })
  const located = { created: 1000, stateChanged: 2000, located: 1500, pagedAt: null } as unknown as ActiveOrder
  shiftOrderTimes(located, -100)
  t.match(located, { created: 900, stateChanged: 1900, located: 1400, pagedAt: null })
})

for (const step of [3 * hour, -2 * hour]) {
  t.test(`a step of ${step / hour} h: orders, history and pages keep their waiting times`, async (t) => {
    const clock = new SteppingClock()
    const gw = await testGateway({}, undefined, clock)
    const watch = gw.services.clockWatch!
    t.ok(watch, 'the gateway clock kind gets a watch')
    const token = await gw.issueToken()
    await gw.json('POST /api/v2/activeorders', { token, body: { name: 1, orderType: 'ON_PREMISE' } })
    await gw.json('POST /api/v2/activeorders', { token, body: { name: 2, orderType: 'TO_GO', locationName: 4 } })
    await clock.advance(40_000)
    await gw.json('DELETE /api/v2/activeorders/2', { token })
    await clock.advance(20_000)
    // A tracker and a repeater, seen just now.
    gw.radio.startTracker(7)
    await gw.services.orders.idle()
    const repeaterAt = clock.now()
    await gw.services.repeaters.record({ extendedAddress: '00:0d:6f:00:00:01:00:09', shortAddress: 0x1009, at: repeaterAt })
    const trackerSeen = gw.services.trackers.byNumber(7)!.lastSeen
    const before = (await gw.json('GET /api/v2/activeorders', { token })).body.items
    const historyBefore = (await gw.json('GET /api/v2/orders', { token })).body.items
    const order = gw.services.orders.list()[0]!
    const cleared = gw.services.history.get(historyBefore[0].uuid)!

    watch.start()
    t.teardown(() => watch.stop())
    clock.step(step)
    clock.now()
    await watch.settled()
    t.match(watch.state().lastJump, { shiftMs: step, cause: 'system' })
    t.equal(clock.drift(), 0)

    t.same((await gw.json('GET /api/v2/activeorders', { token })).body.items.map((o: any) => o.elapsedTime), before.map((o: any) => o.elapsedTime), 'waiting times unchanged')
    t.match(gw.services.orders.list()[0], { created: order.created + step, stateChanged: order.stateChanged + step })
    const stored = await (await gw.services.store.collection<ActiveOrder>('activeorders')).findOne({ uuid: order.uuid })
    t.equal(stored!.created, order.created + step, 'stored moved too')
    t.ok((stored as any).change, 'the change stamp stays on the stored order')
    t.equal(gw.services.trackers.byNumber(7)!.lastSeen, trackerSeen + step, 'the tracker was last seen as long ago as before')
    t.match(gw.services.repeaters.list(), [{ extendedAddress: '00:0d:6f:00:00:01:00:09', status: 'ACTIVE' }], 'the repeater still counts as active')
    const storedRepeater = await (await gw.services.store.collection<{ extendedAddress: string; lastSeen: number }>('repeaters')).findOne({ extendedAddress: '00:0d:6f:00:00:01:00:09' })
    t.equal(storedRepeater!.lastSeen, repeaterAt + step, 'stored moved too')
    const storedTracker = await (await gw.services.store.collection<{ number: number; lastSeen: number }>('trackers')).findOne({ number: 7 })
    t.equal(storedTracker!.lastSeen, trackerSeen + step)
    t.match(gw.services.history.get(cleared.uuid), { orderStarted: cleared.orderStarted + step, orderCleared: cleared.orderCleared + step })
    const historyAfter = (await gw.json('GET /api/v2/orders', { token })).body.items
    t.not(historyAfter[0].orderStarted, historyBefore[0].orderStarted, 'the kept page was forgotten')

    // Cleared after the step: one minute of waiting, not hours.
    await gw.json('DELETE /api/v2/activeorders/1', { token })
    const { statistics } = (await gw.json('GET /api/v2/statistics', { token })).body
    t.match(statistics, { ordersToday: 2, exceededToday: 0 })
    t.ok(statistics.averageSeconds >= 40 && statistics.averageSeconds <= 60, `average ${statistics.averageSeconds} s`)
  })
}

t.test('no watch for a clock that cannot be moved', async (t) => {
  const gw = await testGateway()
  t.equal(gw.services.clockWatch, undefined)
  const { config, clock, log, orders, history, historyPages, repeaters } = gw.services
  t.equal(buildClockWatch({ config, clock, log, orders, history, historyPages, repeaters }), undefined)
  t.same((await gw.services.gateway.status()).clock, { synchronized: null, source: 'none', lastJump: null, setFromBoardAt: null, holdingDeliveries: false, behind: null, ordersOnUnsureClock: 0 })
})
