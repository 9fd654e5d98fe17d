import t from 'tap'
import { presenter } from '../../../lib/api/request-presenter.ts'
import { sampleOrder } from '../../helpers/orders.ts'

t.test('a presenter is bound to its version, the clock and the timezone', async (t) => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0)
  const deps = { clock: { now: () => now }, settings: { timezone: '+02:00' } }
  const v1 = presenter('v1', deps)
  const v2 = presenter('v2', deps)
  t.equal(v2.now, now)
  t.equal(v2.timezone, '+02:00')
  const order = sampleOrder(7, now - 90_000)
  t.match(v1.activeOrder(order), { name: '7', paged: 'No', stateStarted: String })
  t.match(v2.activeOrder(order), { name: '7', paged: false, stateChanged: String, elapsedTime: 90 })
  t.equal(v2.time(now), '2026-11-22T14:00:00+02:00')
  t.equal(v2.time(null), null)
  t.match(v2.token({ id: 'a', name: 'pos', prefix: 'abcdef', created: now, lastUsed: null, ip: null } as never), { name: 'pos' })
  t.match(v2.tracker({ number: 3, address: '00:11', captured: now, lastSeen: now, battery: null, linkQuality: null, order: null } as never), { number: 3 })
  t.match(v2.orderSummary({ uuid: 'u', name: 7, orderType: 'TO_GO', locationName: null, orderStarted: now, orderLocated: null, orderCleared: now } as never), {
    orderCleared: '2026-11-22T14:00:00+02:00',
  })
})

t.test('members are made on first use, kept, and work detached (issue 30)', async (t) => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0)
  const present = presenter('v2', { clock: { now: () => now }, settings: { timezone: 'UTC' } })
  t.equal(present.activeOrder, present.activeOrder, 'the same function each time')
  t.equal(present.time, present.time)
  const { time, orderSummary, token, tracker } = present
  t.equal(time(now), '2026-11-22T12:00:00+00:00')
  t.equal(orderSummary, present.orderSummary)
  t.equal(token, present.token)
  t.equal(tracker, present.tracker)
  t.match([sampleOrder(3, now - 1_000)].map(present.activeOrder), [{ name: '3', elapsedTime: 1 }])
  t.match(presenter('v1', { clock: { now: () => now }, settings: { timezone: 'UTC' } }).activeOrder(sampleOrder(4, now)), { name: '4', paged: 'No' })
})
