// POST /api/v2/gateway/clock (functions/v2/gateway.clock.post.ts): a signed-in board sets the
// gateway's clock while the system clock is not synchronised.
import t, { type Test } from 'tap'
import { buildClockWatch } from '../../../runtime/wiring/clock-wiring.ts'
import type { SyncReading } from '../../../lib/kernel/clock-watch.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'

const hour = 3_600_000

/** A gateway whose clock can be set, the system saying `sync`. */
async function settableGateway(t: Test, sync: SyncReading) {
  const clock = new SteppingClock('2026-11-25T09:00:00Z')
  const gw = await testGateway({}, undefined, clock)
  const { config, log, orders, history, historyPages, repeaters } = gw.services
  const watch = buildClockWatch({ config, clock, log, orders, history, historyPages, repeaters, readSync: async () => sync })!
  gw.services.clockWatch = watch
  watch.start()
  t.teardown(() => watch.stop())
  await gw.services.orders.idle()
  await new Promise((resolve) => setImmediate(resolve))
  return { gw, clock, watch, token: await gw.issueToken() }
}

t.test('sets the clock from the board while the system clock is not synchronised', async (t) => {
  const { gw, clock, token } = await settableGateway(t, { state: 'unsynchronized', source: 'timedatectl' })
  await gw.json('POST /api/v2/activeorders', { token, body: { name: 1, orderType: 'TO_GO' } })
  await clock.advance(30_000)
  const boardTime = clock.now() + 3 * hour
  const { status, body } = await gw.json('POST /api/v2/gateway/clock', { token, body: { time: new Date(boardTime).toISOString() } })
  t.equal(status, 200)
  t.match(body, {
    status: 200,
    returnCode: 11,
    clock: { synchronized: false, source: 'timedatectl', shiftMs: 3 * hour, lastJump: { cause: 'board', shiftMs: 3 * hour }, holdingDeliveries: false },
  })
  t.equal(clock.now(), boardTime)
  t.equal((await gw.json('GET /api/v2/activeorders', { token })).body.items[0].elapsedTime, 30, 'the order still waited 30 s')
  t.match(gw.services.clockWatch!.state(), { setFromBoardAt: boardTime })
  t.ok(
    gw.logs.lines().some((line) => line.msg === 'a board set the gateway clock; moving the times it stored by the same amount' && line.tokenName === 'default'),
    'logged with the token name',
  )
  // Milliseconds since the epoch work too.
  t.match((await gw.json('POST /api/v2/gateway/clock', { token, body: { time: boardTime - 60_000 } })).body, { status: 200, clock: { shiftMs: -60_000 } })
})

t.test('bad times are refused and change nothing', async (t) => {
  const { gw, clock, token } = await settableGateway(t, { state: 'unknown', source: 'none' })
  const now = clock.now()
  for (const body of [
    {},
    { time: 'yesterday' },
    { time: '2026-11-25T10:00:00' },
    { time: -1 },
    { time: 1.5 },
    { time: Date.UTC(2020, 0, 1) },
    { time: now + 400 * 24 * hour },
  ]) {
    const answer = await gw.json('POST /api/v2/gateway/clock', { token, body })
    t.match(answer, { status: 400, body: { returnCode: -21, message: /^Invalid settings value: time/ } }, JSON.stringify(body))
  }
  t.equal(clock.now(), now)
  t.equal(gw.services.clockWatch!.state().lastJump, null)
})

t.test('refused while the system clock is synchronised', async (t) => {
  const { gw, token } = await settableGateway(t, { state: 'synchronized', source: 'chronyc' })
  t.match(await gw.json('POST /api/v2/gateway/clock', { token, body: { time: Date.now() } }), {
    status: 400,
    body: { returnCode: -21, message: 'Invalid settings value: time: the system clock is synchronised (chronyc); the gateway follows it' },
  })
})

t.test('a gateway on a clock that cannot be moved says so', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  t.match(await gw.json('POST /api/v2/gateway/clock', { token, body: { time: Date.now() } }), {
    status: 400,
    body: { returnCode: -21, message: /cannot be set/ },
  })
})

t.test('POST /api/v2/gateway/clock needs a token', async (t) => {
  const gw = await testGateway()
  t.match((await gw.json('POST /api/v2/gateway/clock', { body: { time: Date.now() } })).body, { status: 401, returnCode: -2 })
})
