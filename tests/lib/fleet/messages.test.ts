import t from 'tap'
import { fleetMessages } from '../../../lib/fleet/messages.ts'
import type { OrderChange } from '../../../lib/orders/types.ts'
import { order } from './fixtures.ts'

const at = Date.parse('2026-11-22T12:01:30Z')

t.test('a change becomes the ORDER_MODIFIED notification with seq, change type and site', async (t) => {
  const change: OrderChange = { seq: 41, type: 'ORDER_PAGED', order: order(7, { locationName: 12, paged: true }), at }
  const messages = fleetMessages(change, { siteId: 'site-1', timezone: 'Europe/Paris' })
  t.equal(messages.length, 1)
  t.equal(messages[0].channel, 'events')
  t.same(JSON.parse(messages[0].payload), {
    elapsedTime: 90,
    uuid: change.order.uuid,
    seq: 41,
    created: '2026-11-22T13:00:00',
    orderType: 'ON_PREMISE',
    locationName: '12',
    state: 'started',
    stateStarted: '2026-11-22T13:00:00',
    type: 'ORDER_MODIFIED',
    name: '7',
    change: 'ORDER_PAGED',
    siteId: 'site-1',
    // The same instants in UTC, so HQ needs no table of the sites' zones.
    createdAt: '2026-11-22T12:00:00.000Z',
    stateStartedAt: '2026-11-22T12:00:00.000Z',
  })
})

t.test('a cleared order also yields its summary with seq on history', async (t) => {
  const cleared = order(8, { state: 'cleared', located: Date.parse('2026-11-22T12:00:40Z'), locationName: 3 })
  const change: OrderChange = { seq: 50, type: 'ORDER_CLEARED', order: cleared, at }
  const messages = fleetMessages(change, { siteId: 's', timezone: 'UTC' })
  t.same(
    messages.map((m) => m.channel),
    ['events', 'history'],
  )
  t.same(JSON.parse(messages[1].payload), {
    uuid: cleared.uuid,
    name: '8',
    type: 'ORDER_SUMMARY',
    orderType: 'ON_PREMISE',
    locationName: '3',
    orderStarted: '2026-11-22T12:00:00+00:00',
    orderLocated: '2026-11-22T12:00:40+00:00',
    orderCleared: '2026-11-22T12:01:30+00:00',
    seq: 50,
    siteId: 's',
  })
})

t.test('the stored history summary wins over one rebuilt from the change', async (t) => {
  const cleared = order(9, { state: 'cleared' })
  const change: OrderChange = { seq: 51, type: 'ORDER_CLEARED', order: cleared, at }
  const stored = {
    uuid: cleared.uuid,
    name: 9,
    orderType: 'TO_GO' as const,
    locationName: null,
    orderStarted: cleared.created,
    orderLocated: null,
    orderCleared: at - 1000,
  }
  const messages = fleetMessages(change, { siteId: 's', timezone: 'UTC', storedSummary: (uuid) => (uuid === cleared.uuid ? stored : undefined) })
  const summary = JSON.parse(messages[1].payload)
  t.equal(summary.orderType, 'TO_GO')
  t.equal(summary.orderCleared, '2026-11-22T12:01:29+00:00')
})

t.test('other change types have no history message', async (t) => {
  for (const type of ['ORDER_CREATED', 'ORDER_MODIFIED', 'ORDER_PAGED'] as const) {
    t.equal(fleetMessages({ seq: 1, type, order: order(1), at }, { siteId: 's', timezone: 'UTC' }).length, 1, type)
  }
})

t.test('prevSeq: the change rendered before, on both messages, last; null for the first; absent when not given', async (t) => {
  const cleared: OrderChange = { seq: 50, type: 'ORDER_CLEARED', order: order(9, { state: 'cleared' }), at }
  const chained = fleetMessages(cleared, { siteId: 'site-1', timezone: 'UTC', prevSeq: 47 })
  t.same(
    chained.map((m) => JSON.parse(m.payload).prevSeq),
    [47, 47],
  )
  t.ok(
    chained.every((m) => m.payload.endsWith(',"prevSeq":47}')),
    'appended after siteId: the rest of each message is as before',
  )
  t.same(
    fleetMessages(cleared, { siteId: 'site-1', timezone: 'UTC', prevSeq: null }).map((m) => JSON.parse(m.payload).prevSeq),
    [null, null],
  )
  t.notOk(fleetMessages(cleared, { siteId: 'site-1', timezone: 'UTC' }).some((m) => m.payload.includes('prevSeq')))
})
