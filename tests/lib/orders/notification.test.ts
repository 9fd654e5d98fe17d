import t from 'tap'
import { elapsedSeconds, orderModifiedPayload, orderSummary } from '../../../lib/orders/notification.ts'
import type { ActiveOrder } from '../../../lib/orders/types.ts'

const created = Date.UTC(2026, 0, 2, 11, 0, 0)
const order: ActiveOrder = {
  uuid: '0b6f3c1e-8d2a-4f4b-9c3e-6a1d2b3c4d5e',
  name: 7,
  orderType: 'TO_GO',
  state: 'located',
  locationName: 12,
  created,
  stateChanged: created + 90_000,
  located: created + 90_000,
  tracker: 'a1',
  hadTracker: true,
  paged: false,
  tracking: false,
  pagedAt: null,
}

t.test('ORDER_MODIFIED is written at the moment of the change, in the gateway timezone', async (t) => {
  const payload = orderModifiedPayload(order, 41, { now: created + 125_500, timezone: 'Europe/Zurich' })
  t.same(payload, {
    elapsedTime: 125,
    uuid: order.uuid,
    seq: 41,
    created: '2026-01-02T12:00:00',
    orderType: 'TO_GO',
    locationName: '12',
    state: 'located',
    stateStarted: '2026-01-02T12:01:30',
    type: 'ORDER_MODIFIED',
    name: '7',
  })
  t.same(orderModifiedPayload(order, 41, { now: created + 125_500, timezone: 'Europe/Zurich' }), payload, 'the same change renders the same')
})

t.test('elapsed seconds never go negative; a summary carries the offset', async (t) => {
  t.equal(elapsedSeconds(order, created - 5_000), 0)
  const summary = orderSummary(
    { uuid: order.uuid, name: 7, orderType: 'ON_PREMISE', locationName: null, orderStarted: created, orderLocated: null, orderCleared: created + 60_000 },
    'Europe/Zurich',
  )
  t.same(summary, {
    uuid: order.uuid,
    name: '7',
    type: 'ORDER_SUMMARY',
    orderType: 'ON_PREMISE',
    locationName: null,
    orderStarted: '2026-01-02T12:00:00+01:00',
    orderLocated: null,
    orderCleared: '2026-01-02T12:01:00+01:00',
  })
})
