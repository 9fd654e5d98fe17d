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
