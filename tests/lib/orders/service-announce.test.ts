// Found by the crash test (tests/crash): a change written to the store but cut off before it
// reached the change log (a kill between the two) was never announced: no webhook, no fleet
// event, so a receiver could keep a cleared order forever. Each stored version now carries
// its reserved seq, and resume() records what lies above the change log's watermark again.
// Here the cut is a sink that fails once, which leaves the disk exactly as the kill does.
import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { ChangeLog } from '../../../lib/changes/change-log.ts'
import { HistoryStore } from '../../../lib/history/store.ts'
import { TrackerInventory, type TrackerRecord } from '../../../lib/inventory/trackers.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { activeOrdersCollection, OrdersService } from '../../../lib/orders/service.ts'
import type { OrderChange } from '../../../lib/orders/types.ts'
import { Store } from '../../../lib/store/db.ts'

/** One run of the gateway's order side on a store that outlives it. */
async function run(store: Store, history: HistoryStore, clock: ManualClock) {
  const recorded: OrderChange[] = []
  let cut = false
  const sink = async (change: OrderChange) => {
    if (cut) throw new Error('killed before the change log')
    recorded.push(change)
  }
  const changes = await ChangeLog.open(await store.collection('seq'), clock, { sinks: [sink] })
  const orders = await OrdersService.open({
    collection: await activeOrdersCollection(store),
    history,
    changes,
    trackers: await TrackerInventory.open(await store.collection<TrackerRecord>('trackers')),
    pager: { onceLeaseMs: 60_000, page: () => {}, stop: () => {} },
    clock,
    log: memoryLogger().log,
  })
  return { orders, changes, recorded, cutNext: () => (cut = true) }
}

t.test('a change stored but not announced before a crash is announced after the restart, with its own seq', async (t) => {
  const store = new Store()
  const history = new HistoryStore(':memory:')
  const clock = new ManualClock()
  const first = await run(store, history, clock)
  const { order } = await first.orders.create({ name: 1, requireTracker: false })
  await clock.advance(1000)
  first.cutNext()
  await t.rejects(first.orders.create({ name: 1, locationName: 5, requireTracker: false }), { message: 'killed before the change log' })
  await first.changes.flush()

  await clock.advance(1000)
  const second = await run(store, history, clock)
  t.match(second.orders.get({ name: 1 }), { uuid: order.uuid, locationName: 5 }, 'the write was durable')
  await second.orders.resume()
  t.match(second.recorded, [{ seq: 2, type: 'ORDER_MODIFIED', order: { uuid: order.uuid, locationName: 5 }, at: clock.now() - 1000 }])
  t.equal(second.recorded.length, 1, 'the change announced before the crash is not announced again')
  await second.orders.clear({ name: 1 })
  t.ok(second.recorded.at(-1)!.seq > 2, 'later changes continue after it')
})

t.test('a clear stored but not announced: ORDER_CLEARED after the restart, in history once, not active', async (t) => {
  const store = new Store()
  const history = new HistoryStore(':memory:')
  const clock = new ManualClock()
  const first = await run(store, history, clock)
  const { order } = await first.orders.create({ name: 7, locationName: 3, requireTracker: false })
  first.cutNext()
  await t.rejects(first.orders.clear({ name: 7 }), { message: 'killed before the change log' })

  const second = await run(store, history, clock)
  t.same(second.orders.list(), [], 'not active')
  t.equal(await (await store.collection('activeorders')).count({ uuid: order.uuid }), 0, 'the tombstone is removed')
  t.match(history.get(order.uuid), { name: 7, locationName: 3 })
  await second.orders.resume()
  t.match(second.recorded, [{ seq: 2, type: 'ORDER_CLEARED', order: { uuid: order.uuid, state: 'cleared', locationName: 3 } }])
  t.equal(second.recorded.length, 1, 'once')
  const third = await run(store, history, clock)
  await third.orders.resume()
  t.same(third.recorded, [], 'and not again at the next start')
})

t.test('after a clean run nothing is announced again', async (t) => {
  const store = new Store()
  const history = new HistoryStore(':memory:')
  const clock = new ManualClock()
  const first = await run(store, history, clock)
  await first.orders.create({ name: 1, requireTracker: false })
  await first.orders.create({ name: 2, requireTracker: false })
  await first.orders.clear({ name: 1 })
  await first.orders.idle()
  await first.changes.flush()
  const second = await run(store, history, clock)
  await second.orders.resume()
  t.same(second.recorded, [])
  t.same(
    second.orders.list().map((o) => o.name),
    [2],
  )
  t.notOk('change' in second.orders.get({ name: 2 }), 'the stamp stays in the store, out of the order')
})
