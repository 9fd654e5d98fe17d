// The orders service and the clock each time was taken on (lib/orders/stamps.ts): after a
// restart, a step only the new run's clock took moves only the new run's times, in memory,
// as stored and in the history rows it writes (issue 40: a power cut while orders are
// active).
import t from 'tap'
import { ChangeLog } from '../../../lib/changes/change-log.ts'
import { HistoryStore } from '../../../lib/history/store.ts'
import { TrackerInventory, type TrackerRecord } from '../../../lib/inventory/trackers.ts'
import { activeOrdersCollection, OrdersService } from '../../../lib/orders/service.ts'
import { Store } from '../../../lib/store/db.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

const minute = 60_000
const day = 1440 * minute

async function run(store: Store, history: HistoryStore, clock: ManualClock, id: string, right = false) {
  const changes = await ChangeLog.open(await store.collection('seq'), clock, { sinks: [] })
  const orders = await OrdersService.open({
    collection: await activeOrdersCollection(store),
    history,
    changes,
    trackers: await TrackerInventory.open(await store.collection<TrackerRecord>('trackers')),
    pager: { onceLeaseMs: minute, page: () => {}, stop: () => {} },
    clock,
    log: memoryLogger().log,
    clockRun: { id, right: () => right },
  })
  return { orders, changes }
}

t.test('a step after a restart moves the new run\'s times, not those stamped before it', async (t) => {
  const store = new Store()
  const history = new HistoryStore(':memory:')
  t.teardown(() => history.close())
  const before = new ManualClock('2026-11-22T12:00:00Z')
  const first = await run(store, history, before, 'run-a')
  await first.orders.create({ name: 1, requireTracker: false })
  await first.orders.create({ name: 2, requireTracker: false })
  await before.advance(2 * minute)
  await first.changes.flush()
  const one = first.orders.get({ name: 1 })

  // Power cut; the box boots with its clock a day behind (the gateway, as it may, stands at it).
  const after = new ManualClock(before.now() - day)
  const second = await run(store, history, after, 'run-b')
  await second.orders.create({ name: 3, requireTracker: false })
  const three = second.orders.get({ name: 3 })
  await after.advance(minute)
  await second.orders.clear({ name: 2 })
  const twoRow = history.get(first.orders.get({ name: 2 }).uuid)!

  // Network time: the step forward is mended.
  const moved = await second.orders.shiftTimes(day, () => {})
  t.equal(moved, 1, 'one order carried times of this run')
  t.equal(second.orders.get({ name: 1 }).created, one.created, 'order 1 keeps the time it was created, on the right clock')
  t.equal(second.orders.get({ name: 3 }).created, three.created + day, 'order 3, stamped a day behind, is mended')
  const stored = await (await activeOrdersCollection(store)).findOne({ uuid: one.uuid })
  t.equal(stored!.created, one.created, 'as stored')
  t.same((stored as any).clockRuns, { created: 'run-a', stateChanged: 'run-a' }, 'stored with the run that took its times')
  t.equal(history.shiftWritten(day), 1)
  const row = history.get(twoRow.uuid)!
  t.equal(row.orderStarted, twoRow.orderStarted, 'the row keeps its start, taken before the cut')
  t.equal(row.orderCleared, twoRow.orderCleared + day, 'its end, taken on the clock a day behind, is mended')
  t.ok(row.orderCleared >= row.orderStarted)
})

t.test('times taken while the clock is known right are never moved', async (t) => {
  const store = new Store()
  const history = new HistoryStore(':memory:')
  t.teardown(() => history.close())
  const clock = new ManualClock('2026-11-22T12:00:00Z')
  const { orders } = await run(store, history, clock, 'run-a', true)
  const order = (await orders.create({ name: 1, requireTracker: false })).order
  t.equal(await orders.shiftTimes(-3 * minute, () => {}), 0)
  t.equal(orders.get({ name: 1 }).created, order.created)
  t.equal(orders.latestTime(), order.created, 'a right time is part of the high-water mark')
  t.equal(orders.ordersOnUnsureClock(() => true), 0)
})

t.test('orders an earlier run took on a clock never known right are counted', async (t) => {
  const store = new Store()
  const history = new HistoryStore(':memory:')
  t.teardown(() => history.close())
  const clock = new ManualClock('2026-11-22T12:00:00Z')
  const first = await run(store, history, clock, 'run-a')
  await first.orders.create({ name: 1, requireTracker: false })
  await first.changes.flush()
  const second = await run(store, history, clock, 'run-b')
  await second.orders.create({ name: 2, requireTracker: false })
  t.equal(second.orders.ordersOnUnsureClock((id) => id === 'run-a'), 1)
  t.equal(second.orders.ordersOnUnsureClock(() => false), 0)
  t.equal(second.orders.latestTime((id) => id !== 'run-a'), 0, 'neither an unsure run nor this one sets the mark')
})
