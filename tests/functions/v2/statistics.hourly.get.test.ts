import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { summary } from '../../lib/history/fixtures.ts'

t.test('v2 statistics/hourly: code 10, today by default, the week on request, target from the setting', async (t) => {
  const gw = await testGateway({}, '2026-11-22T15:00:00Z')
  await gw.services.settings.update({ timezone: 'UTC', targetTimeDefault: 240 })
  const token = await gw.issueToken()
  const at = Date.parse('2026-11-22T12:20:00Z')
  gw.services.history.insertMany([
    summary(1, { orderStarted: at - 200_000, orderCleared: at }),
    summary(2, { orderStarted: at - 86_400_000 - 300_000, orderCleared: at - 86_400_000 }),
  ])
  const { status, body } = await gw.json('GET /api/v2/statistics/hourly', { token })
  t.equal(status, 200)
  t.match(body, { returnCode: 10, hourly: { range: 'day', days: 1, targetTime: 240 } })
  t.same(body.hourly.hours[12], { hour: 12, orders: 1, medianSeconds: 200, p90Seconds: 200, overTarget: 0 })
  const week = await gw.json('GET /api/v2/statistics/hourly?range=week&target_time=100', { token })
  t.same(week.body.hourly.hours[12], { hour: 12, orders: 2, medianSeconds: 200, p90Seconds: 300, overTarget: 2 })
})

t.test('v2 statistics/hourly: a bad range is -25, a bad target -22, nothing without a token', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const range = await gw.json('GET /api/v2/statistics/hourly?range=month', { token })
  t.same([range.status, range.body.returnCode], [400, -25])
  t.match(range.body.message, /range must be day or week/)
  t.equal((await gw.json('GET /api/v2/statistics/hourly?target_time=0', { token })).body.returnCode, -22)
  t.equal((await gw.json('GET /api/v2/statistics/hourly')).status, 401)
})
