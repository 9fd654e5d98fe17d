// Which clock each time of an active order was taken on (lib/orders/stamps.ts).
import t from 'tap'
import { OrderStamps, rightClock, unknownRun } from '../../../lib/orders/stamps.ts'
import { sampleOrder } from '../../helpers/orders.ts'

t.test('a new time is this run\'s, or right while the clock is known right; a carried time keeps its run', async (t) => {
  let right = false
  const stamps = new OrderStamps('run-b', () => right)
  const created = sampleOrder(1, 1000)
  t.same(stamps.runsOf(undefined, created), { created: 'run-b', stateChanged: 'run-b' }, 'null times have no run')
  stamps.set(created.uuid, stamps.runsOf(undefined, created))
  right = true
  const located = { ...created, state: 'located' as const, stateChanged: 5000, located: 5000, locationName: 3 }
  const runs = stamps.runsOf(created, located)
  t.same(runs, { created: 'run-b', stateChanged: rightClock, located: rightClock })
  stamps.set(created.uuid, runs)
  t.same(stamps.fieldsOfThisRun(located), ['created'], 'a step moves only the time this run took on a clock not known right')
  t.equal(stamps.stampedNow(created.uuid, 'created'), true)
  t.equal(stamps.stampedNow(created.uuid, 'located'), false)
  stamps.forget(created.uuid)
  t.same(stamps.of(created.uuid), {})
})

t.test('times loaded from storage are an earlier run\'s: no step of this run moves them', async (t) => {
  const stamps = new OrderStamps('run-b')
  const order = sampleOrder(1, 1000, { pagedAt: 2000, paged: true })
  stamps.loaded(order, { created: 'run-a', pagedAt: rightClock })
  t.same(stamps.of(order.uuid), { created: 'run-a', stateChanged: unknownRun, pagedAt: rightClock })
  t.same(stamps.fieldsOfThisRun(order), [])
  const legacy = sampleOrder(2, 3000)
  stamps.loaded(legacy, undefined)
  t.same(stamps.of(legacy.uuid), { created: unknownRun, stateChanged: unknownRun }, 'stored before runs were kept: an earlier run')
})

t.test('unsure clocks and the high-water mark', async (t) => {
  const stamps = new OrderStamps('run-c')
  const unsure = (run: string) => run === 'run-a'
  const a = sampleOrder(1, 1000)
  stamps.loaded(a, { created: 'run-a', stateChanged: 'run-a' })
  const b = sampleOrder(2, 2000)
  stamps.loaded(b, { created: rightClock, stateChanged: 'run-b' })
  const c = sampleOrder(3, 9000)
  stamps.set(c.uuid, { created: 'run-c', stateChanged: 'run-c' })
  t.equal(stamps.takenOnUnsureClock(a.uuid, unsure), true)
  t.equal(stamps.takenOnUnsureClock(b.uuid, unsure), false)
  t.equal(stamps.takenOnUnsureClock(c.uuid, (run) => run === 'run-c'), false, 'this run\'s times can still be mended')
  const trusted = (run: string) => !unsure(run)
  t.equal(stamps.latestTaken(a, trusted), 0, 'an unsure run sets no mark')
  t.equal(stamps.latestTaken(b, trusted), 2000)
  t.equal(stamps.latestTaken(c, trusted), 0, 'nor does this run\'s own clock, which a step corrects')
})
