import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { summary } from '../../lib/history/fixtures.ts'

const at = (iso: string) => Date.parse(iso)
const cleared = (n: number, clearedIso: string, seconds: number) => summary(n, { orderStarted: at(clearedIso) - seconds * 1000, orderCleared: at(clearedIso) })

t.test('v2 statistics: code 10, figures inside `statistics`, target from the setting by default', async (t) => {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  await gw.services.settings.update({ timezone: 'UTC' })
  const token = await gw.issueToken()
  gw.services.history.insertMany([cleared(1, '2026-11-22T09:00:00Z', 200), cleared(2, '2026-11-22T10:00:00Z', 400)])
  const { status, body } = await gw.json('GET /api/v2/statistics', { token })
  t.equal(status, 200)
  t.same(body, {
    status: 200,
    returnCode: 10,
    statistics: { ordersToday: 2, averageSeconds: 300, exceededToday: 1, percentGoal: 50, targetTime: 300 },
  })
  await gw.services.settings.update({ targetTimeDefault: 450 })
  t.match((await gw.json('GET /api/v2/statistics', { token })).body.statistics, { targetTime: 450, exceededToday: 0, percentGoal: 100 })
  t.match((await gw.json('GET /api/v2/statistics?target_time=150.5', { token })).body.statistics, { targetTime: 150.5, exceededToday: 2, percentGoal: 0 })
})

t.test('v2 statistics: -22 for a target_time that is not a positive number; 401 without a token', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  for (const bad of ['0', '-5', 'abc', '', '1e3', 'Infinity', '0.0', '12s']) {
    const { status, body } = await gw.json(`GET /api/v2/statistics?target_time=${bad}`, { token })
    t.equal(status, 400, bad)
    t.equal(body.returnCode, -22, bad)
  }
  t.equal((await gw.json('GET /api/v2/statistics')).status, 401)
})

t.test('"today" follows the clock and the timezone setting, changed at run time', async (t) => {
  // 23:30 UTC on the 22nd: still the 22nd in UTC, already the 23rd in Tokyo (+09:00).
  const gw = await testGateway({}, '2026-11-22T23:30:00Z')
  await gw.services.settings.update({ timezone: 'UTC' })
  const token = await gw.issueToken()
  gw.services.history.insertMany([
    cleared(1, '2026-11-22T10:00:00Z', 60), // 22nd UTC; 22nd 19:00 Tokyo
    cleared(2, '2026-11-22T16:00:00Z', 60), // 22nd UTC; 23rd 01:00 Tokyo
    cleared(3, '2026-11-22T23:10:00Z', 60), // 22nd UTC; 23rd 08:10 Tokyo
  ])
  const ordersToday = async () => (await gw.json('GET /api/v2/statistics', { token })).body.statistics.ordersToday
  t.equal(await ordersToday(), 3, 'UTC: all three cleared on the 22nd')
  await gw.services.settings.update({ timezone: 'Asia/Tokyo' })
  t.equal(await ordersToday(), 2, 'Tokyo: the 23rd has begun; two of them were cleared on it')
  await gw.services.settings.update({ timezone: 'America/New_York' })
  t.equal(await ordersToday(), 3, 'New York: still the 22nd (18:30)')
  await gw.clock.advance(6 * 3600_000) // 05:30 UTC on the 23rd = 00:30 in New York
  t.equal(await ordersToday(), 0, 'after New York midnight a new day starts empty')
  await gw.services.settings.update({ timezone: 'Asia/Tokyo' })
  t.equal(await ordersToday(), 2, 'Tokyo: still the 23rd (14:30)')
})
