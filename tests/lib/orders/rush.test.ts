import t from 'tap'
import { seededRandom } from '../../../lib/orders/rush.ts'
import { testGateway } from '../../helpers/gateway.ts'

t.test('a lunch rush plays a whole service through the radio and stops by itself', async (t) => {
  const gw = await testGateway()
  const events: string[] = []
  for (const kind of ['trackerStarted', 'trackerLocated', 'trackerCleared'] as const) gw.radio.on(kind, () => events.push(kind))
  const started = await gw.services.rush.start({ minutes: 20, pace: 10, seed: 7, targetSeconds: 300 })
  t.match(started, { state: 'running', pace: 10, guests: 1 })
  t.equal(started.arrivalsEndAt, gw.clock.now() + 120_000, '20 restaurant minutes are 2 minutes at pace 10')

  // Two real minutes at pace 10: guests keep arriving, tables fill, orders clear.
  let most = 0
  for (let i = 0; i < 120; i++) {
    await gw.clock.advance(1000)
    await gw.services.orders.idle()
    most = Math.max(most, gw.services.orders.list().length)
  }
  const midway = gw.services.rush.status()
  t.ok(midway.guests >= 30, `${midway.guests} guests in 20 minutes`)
  t.ok(most >= 5, `up to ${most} orders at once`)
  t.ok(events.includes('trackerLocated') && events.includes('trackerCleared'), 'trackers are placed and cleared through the radio')
  t.ok(gw.services.history.statistics({ now: gw.clock.now(), timezone: 'UTC', targetTime: 300 }).ordersToday > 10, 'cleared orders are in history')

  // The last guests finish; then the rush stops by itself.
  for (let i = 0; i < 60 && gw.services.rush.status().state !== 'stopped'; i++) {
    await gw.clock.advance(5000)
    await gw.services.orders.idle()
  }
  const end = gw.services.rush.status()
  t.equal(end.state, 'stopped', 'stopped by itself once the last guest left')
  t.equal(gw.services.orders.list().length, 0, 'every order was cleared at the pass')
  t.ok(end.late >= 1 && end.pages >= 1, `${end.late} late orders, ${end.pages} to-go pages`)
  // Pace compresses every duration: at pace 10 the 300 s target is 30 s of real time.
  const day = gw.services.history.statistics({ now: gw.clock.now(), timezone: 'UTC', targetTime: 30 })
  t.ok(day.exceededToday >= 1 && day.exceededToday < day.ordersToday / 3, `${day.exceededToday} of ${day.ordersToday} orders over target`)
})

t.test('a rush skips orders cleared on the board and refuses bad options', async (t) => {
  const gw = await testGateway()
  for (const bad of [{ pace: 0 }, { minutes: 0 }, { minutes: 601 }, { pace: 5000 }, { targetSeconds: -1 }]) {
    await t.rejects(gw.services.rush.start(bad), { name: 'DomainError', kind: 'SIM_INPUT_INVALID' } as object as Error, JSON.stringify(bad))
  }
  await gw.services.rush.start({ minutes: 1, pace: 1, seed: 3 })
  const [first] = gw.services.orders.list()
  await gw.services.orders.clear({ name: first!.name })
  for (let i = 0; i < 80 && gw.services.rush.status().state !== 'stopped'; i++) {
    await gw.clock.advance(10_000)
    await gw.services.orders.idle()
  }
  t.equal(gw.services.rush.status().state, 'stopped')
  t.equal(gw.logs.lines().filter((line) => line.msg === 'lunch rush: a move was refused').length, 0, 'no refused moves')
})

t.test('seededRandom repeats itself for a seed', async (t) => {
  const a = seededRandom(42)
  const b = seededRandom(42)
  const draws = [a(), a(), a()]
  t.same([b(), b(), b()], draws)
  t.ok(draws.every((x) => x >= 0 && x < 1))
})

t.test('a move under way when the rush stops schedules nothing more', async (t) => {
  const gw = await testGateway()
  const starting = gw.services.rush.start({ minutes: 5, pace: 1, seed: 5 })
  gw.services.rush.stop()
  await starting
  await gw.services.orders.idle()
  const orders = gw.services.orders.list().length
  await gw.clock.advance(3_600_000)
  await gw.services.orders.idle()
  t.equal(gw.services.orders.list().length, orders, 'the first guest keeps their tracker; nothing else happens')
  t.equal(gw.services.rush.status().state, 'stopped')
})
