import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { clockNotice } from '../../../web/board/clock-notice.js'

const clock = { synchronized: false, source: 'timedatectl', lastJump: null, setFromBoardAt: null, holdingDeliveries: false }

t.test('no notice for a synchronised clock, or one the system cannot judge', async (t) => {
  t.match(clockNotice({ ...clock, synchronized: true }), { hidden: true, canSet: false })
  t.match(clockNotice({ ...clock, synchronized: null }), { hidden: true })
  t.match(clockNotice(undefined), { hidden: true })
})

t.test('a notice, with the offer to set the time, for an unsynchronised clock', async (t) => {
  t.same(clockNotice(clock), { hidden: false, text: "The gateway's clock is not synchronised: times may be off.", canSet: true })
  t.match(clockNotice({ ...clock, holdingDeliveries: true }), { text: /Webhook deliveries wait for the time\.$/ })
  t.match(clockNotice({ ...clock, setFromBoardAt: 1 }), { hidden: false, text: /set from a board/, canSet: true })
})

t.test('a clock started behind the times already written, and orders on a clock never known right', async (t) => {
  const behind = { highWater: Date.UTC(2026, 10, 25, 9), behindMs: 86_400_000 }
  t.match(clockNotice({ ...clock, behind }), { hidden: false, text: /not synchronised: times may be off\. The gateway's clock started behind the times it had already written/, canSet: true })
  // The system cannot judge its clock (no timedatectl): the start behind is the only sign.
  t.match(clockNotice({ ...clock, synchronized: null, behind }), { hidden: false, text: /^The gateway's clock started behind/, canSet: true })
  // Synchronised: the clock is right, but two orders carry times nothing can mend.
  t.same(clockNotice({ ...clock, synchronized: true, ordersOnUnsureClock: 2 }), { hidden: false, text: '2 orders were started on a clock never known to be right: their waiting times may be off.', canSet: false })
  t.match(clockNotice({ ...clock, synchronized: true, ordersOnUnsureClock: 1 }), { text: /^1 order was started .*its waiting time may be off\.$/ })
  t.match(clockNotice({ ...clock, ordersOnUnsureClock: 1 }), { text: /not synchronised: times may be off\. 1 order was started/ })
  t.match(clockNotice({ ...clock, synchronized: true, ordersOnUnsureClock: 0, behind: null }), { hidden: true })
})
