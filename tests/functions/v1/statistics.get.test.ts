import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { summary } from '../../lib/history/fixtures.ts'

t.test('v1 statistics: flat, no token, no returnCode; target_time default 300', async (t) => {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  await gw.services.settings.update({ timezone: 'UTC' })
  const started = Date.parse('2026-11-22T10:00:00Z')
  gw.services.history.insertMany([
    summary(1, { orderStarted: started, orderCleared: started + 100_000 }),
    summary(2, { orderStarted: started, orderCleared: started + 301_000 }),
    summary(3, { orderStarted: started, orderCleared: started + 302_500 }),
  ])
  const { status, body } = await gw.json('GET /api/v1/statistics')
  t.equal(status, 200)
  t.same(body, { status: 200, ordersToday: 3, averageSeconds: 234.5, exceededToday: 2, percentGoal: 33.3, targetTime: 300 })
  const custom = await gw.json('GET /api/v1/statistics?target_time=302')
  t.match(custom.body, { targetTime: 302, exceededToday: 1, percentGoal: 66.6 })
})

t.test('v1 statistics: 400 {status, message} for a bad target_time', async (t) => {
  const gw = await testGateway()
  for (const bad of ['0', 'x', '-1']) {
    const { status, body } = await gw.json(`GET /api/v1/statistics?target_time=${bad}`)
    t.equal(status, 400, bad)
    t.same(body, { status: 400, message: 'target_time must be a positive number of seconds' })
  }
})
