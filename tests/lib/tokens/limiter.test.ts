import fc from 'fast-check'
import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { AuthFailureLimiter, keyOf } from '../../../lib/tokens/limiter.ts'

t.test('N failures a minute are allowed; then the address waits', async (t) => {
  const clock = new ManualClock()
  const limiter = new AuthFailureLimiter(clock, 20)
  for (let i = 0; i < 19; i++) limiter.recordFailure('10.0.0.1')
  t.equal(limiter.retryAfter('10.0.0.1'), 0, 'one failure left')
  limiter.recordFailure('10.0.0.1')
  t.equal(limiter.retryAfter('10.0.0.1'), 3, '60 s / 20 = 3 s until the next try')
  t.equal(limiter.retryAfter('10.0.0.2'), 0, 'other addresses are not affected')
  await clock.advance(2_000)
  t.equal(limiter.retryAfter('10.0.0.1'), 1)
  await clock.advance(1_000)
  t.equal(limiter.retryAfter('10.0.0.1'), 0, 'one more try after 3 s')
  limiter.recordFailure('10.0.0.1')
  t.equal(limiter.retryAfter('10.0.0.1'), 3)
})

t.test('failures while limited do not deepen the wait', async (t) => {
  const clock = new ManualClock()
  const limiter = new AuthFailureLimiter(clock, 2)
  for (let i = 0; i < 100; i++) limiter.recordFailure('10.0.0.1')
  t.equal(limiter.retryAfter('10.0.0.1'), 30)
  await clock.advance(20_000)
  limiter.recordFailure('10.0.0.1')
  t.equal(limiter.retryAfter('10.0.0.1'), 10, 'an attempt answered 429 does not reset the wait')
})

t.test('a full minute of quiet forgets the address', async (t) => {
  const clock = new ManualClock()
  const limiter = new AuthFailureLimiter(clock, 3)
  for (let i = 0; i < 3; i++) limiter.recordFailure('10.0.0.1')
  await clock.advance(60_000)
  for (let i = 0; i < 2; i++) limiter.recordFailure('10.0.0.1')
  t.equal(limiter.retryAfter('10.0.0.1'), 0)
})

t.test('an IPv6 client is limited by its /64', async (t) => {
  t.equal(keyOf('2001:db8:1:2::1'), keyOf('2001:db8:1:2:ffff::9'))
  t.equal(keyOf('2001:db8:1:2::1'), keyOf('2001:0db8:0001:0002:0:0:0:1'))
  t.not(keyOf('2001:db8:1:2::1'), keyOf('2001:db8:1:3::1'))
  t.equal(keyOf('::1'), '0:0:0:0::/64')
  t.equal(keyOf('fe80::1%eth0'), 'fe80:0:0:0::/64')
  t.equal(keyOf('192.168.1.9'), '192.168.1.9')
})

t.test('property: never more than N failures counted within any minute before a wait', async () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 30 }), fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 200 }), (perMinute, gaps) => {
      // Synchronous time for a synchronous property: only now() is used by the limiter.
      let now = 0
      const clock = { now: () => now, setTimeout: () => ({ id: 0 }), clearTimeout: () => {} }
      const limiter = new AuthFailureLimiter(clock, perMinute)
      const accepted: number[] = []
      for (const gap of gaps) {
        now += gap
        if (limiter.retryAfter('a') === 0) {
          limiter.recordFailure('a')
          accepted.push(now)
        }
      }
      // A token bucket lets through at most capacity + rate × span in any span.
      for (let i = 0; i < accepted.length; i++) {
        const within = accepted.filter((at) => at >= accepted[i] && at < accepted[i] + 60_000).length
        if (within > 2 * perMinute) return false
      }
      // And an address failing no faster than the sustained rate is never refused.
      if (gaps.every((gap) => gap >= 60_000 / perMinute)) return accepted.length === gaps.length
      return true
    }),
  )
})
