// The failed-authentication limit and a gateway clock moved back: refilled by the minute as
// measured, not locked for the hours the wall clock went back.
import t from 'tap'
import { AuthFailureLimiter } from '../../../lib/tokens/limiter.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'

t.test('a clock moved back two hours does not keep an address limited', async (t) => {
  const clock = new SteppingClock()
  const limiter = new AuthFailureLimiter(clock, 2)
  limiter.recordFailure('192.0.2.1')
  limiter.recordFailure('192.0.2.1')
  t.equal(limiter.retryAfter('192.0.2.1'), 30)
  clock.shift(-2 * 3_600_000)
  t.equal(limiter.retryAfter('192.0.2.1'), 30, 'the wait is what it was')
  await clock.advance(30_000)
  t.equal(limiter.retryAfter('192.0.2.1'), 0)
})
