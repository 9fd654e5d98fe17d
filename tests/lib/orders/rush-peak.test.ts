import t from 'tap'
import { arrivalGapAt, lateShareAt, peakGap, peakLateShare, peakLevel, quietGap, quietLateShare } from '../../../lib/orders/rush-peak.ts'
import { testGateway } from '../../helpers/gateway.ts'

t.test('quiet, rising, the peak, falling', async (t) => {
  t.same([peakLevel(0), peakLevel(0.125), peakLevel(0.5), peakLevel(0.875), peakLevel(1)], [0, 0.5, 1, 0.5, 0])
  t.same(arrivalGapAt(0), quietGap)
  t.same(arrivalGapAt(0.5), peakGap)
  t.ok(Math.abs(lateShareAt(0.95) - quietLateShare) < 0.03, 'nearly quiet again at the end')
  t.equal(lateShareAt(1), quietLateShare)
  t.equal(lateShareAt(0.4), peakLateShare)
})

t.test("the demo's lunch: 25-35 orders out at its peak, late ones among them", async (t) => {
  const gw = await testGateway()
  // The demo's service (30 minutes, pace 1) played at pace 10 on the manual clock.
  await gw.services.rush.start({ minutes: 30, pace: 10, seed: 28, targetSeconds: 300, peak: true })
  const target = 30 // 300 restaurant seconds at pace 10
  let most = 0
  let lateAtMost = 0
  let quietEarly = 0
  for (let second = 1; second <= 180; second++) {
    await gw.clock.advance(1000)
    await gw.services.orders.idle()
    const active = gw.services.orders.list()
    if (second === 20) quietEarly = active.length
    if (active.length > most) {
      most = active.length
      lateAtMost = active.filter((order) => (gw.clock.now() - order.created) / 1000 >= target).length
    }
  }
  gw.services.rush.stop()
  t.ok(quietEarly <= 12, `a quiet start: ${quietEarly} orders after 200 restaurant seconds`)
  t.ok(most >= 25 && most <= 35, `${most} orders out at the peak`)
  t.ok(lateAtMost >= 2, `${lateAtMost} of them late`)
})
