import fc from 'fast-check'
import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { ChangeLog } from '../../../lib/changes/change-log.ts'
import { HistoryStore } from '../../../lib/history/store.ts'
import { TrackerInventory, type TrackerRecord } from '../../../lib/inventory/trackers.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { activeOrdersCollection, OrdersService, type Pager } from '../../../lib/orders/service.ts'
import type { FaultHook, FaultPoint } from '../../../lib/orders/fault.ts'
import type { ActiveOrder, ChangeType } from '../../../lib/orders/types.ts'
import { Store } from '../../../lib/store/db.ts'

const changeLogs = new WeakMap<Store, ChangeLog>()

async function setup(options: { store?: Store; history?: HistoryStore; fault?: FaultHook } = {}) {
  const store = options.store ?? new Store()
  const history = options.history ?? new HistoryStore(':memory:')
  const clock = new ManualClock()
  const recorded: { type: ChangeType; order: ActiveOrder }[] = []
  const paging = new Map<string, boolean>()
  /** Every call the pager got, in order. */
  const pagerCalls: string[] = []
  const pager: Pager = {
    onceLeaseMs: 60_000,
    page: (tracker, { tracking }) => {
      pagerCalls.push(`page ${tracker}`)
      paging.set(tracker, tracking)
    },
    stop: (tracker) => {
      pagerCalls.push(`stop ${tracker}`)
      paging.delete(tracker)
    },
  }
  const collection = await activeOrdersCollection(store)
  // A restart on the same store: the previous run's change-log watermark is written first.
  await changeLogs.get(store)?.flush()
  const changes = await ChangeLog.open(await store.collection('seq'), clock, {
    sinks: [async (change) => void recorded.push({ type: change.type, order: change.order })],
  })
  changeLogs.set(store, changes)
  const trackers = await TrackerInventory.open(await store.collection<TrackerRecord>('trackers'))
  const orders = await OrdersService.open({
    collection,
    history,
    changes,
    trackers,
    pager,
    clock,
    log: memoryLogger().log,
    fault: options.fault,
  })
  return { store, history, clock, recorded, paging, pagerCalls, collection, trackers, orders }
}

t.test('open() finishes a clear a crash interrupted; resume() records its ORDER_CLEARED', async (t) => {
  const first = await setup()
  await first.orders.create({ name: 1, requireTracker: false })
  await first.orders.create({ name: 2, requireTracker: false })
  const one = first.orders.get({ name: 1 })
  // The crash: summary written, the active order still there.
  first.history.insert({
    uuid: one.uuid,
    name: 1,
    orderType: 'ON_PREMISE',
    locationName: null,
    orderStarted: one.created,
    orderLocated: null,
    orderCleared: one.created + 5000,
  })
  const second = await setup({ store: first.store, history: first.history })
  t.same(
    second.orders.list().map((o) => o.name),
    [2],
  )
  t.equal(await first.collection.count({ uuid: one.uuid }), 0, 'removed from the active store')
  t.same(second.recorded, [])
  await second.orders.resume()
  t.match(second.recorded, [{ type: 'ORDER_CLEARED', order: { uuid: one.uuid, state: 'cleared', stateChanged: one.created + 5000 } }])
})

t.test('a data dir from before the orders were keyed by uuid: its orders load, its tombstone goes, and new versions replace the old', async (t) => {
  const order = (uuid: string, name: number, change: object) =>
    JSON.stringify({
      uuid,
      name,
      orderType: 'ON_PREMISE',
      state: 'started',
      locationName: null,
      created: name,
      stateChanged: name,
      located: null,
      tracker: null,
      hadTracker: false,
      paged: false,
      tracking: false,
      pagedAt: null,
      change,
      _id: `nedb-id-${name}`,
    })
  const u1 = '00000000-0000-4000-8000-000000000001'
  const u2 = '00000000-0000-4000-8000-000000000002'
  const dir = t.testdir({
    'activeorders.db': [order(u1, 1, { seq: 1, type: 'ORDER_CREATED', at: 1 }), order(u2, 2, { seq: 2, type: 'ORDER_CLEARED', at: 2 }), ''].join('\n'),
  })
  const s = await setup({ store: new Store({ dataDir: dir, syncIntervalMs: 0 }) })
  t.same(
    s.orders.list().map((o) => o.uuid),
    [u1],
    'the cleared one was a tombstone',
  )
  t.same(
    (await s.collection.find({})).map((doc) => (doc as { _id: string })._id),
    [u1],
    'stored under its uuid',
  )
  await s.orders.create({ name: 1, locationName: 4, requireTracker: false })
  t.equal(await s.collection.count({ uuid: u1 }), 1, 'the new version replaced the old one')
  const again = await setup({ store: new Store({ dataDir: dir, syncIntervalMs: 0 }) })
  t.match(again.orders.list(), [{ uuid: u1, locationName: 4 }])
})

t.test('resume() re-arms tracking pages and the rest of single pages; a single page that ran out is unpaged', async (t) => {
  const first = await setup()
  for (const [number, address] of [
    [1, 'A'],
    [2, 'B'],
    [3, 'C'],
  ] as const) {
    await first.orders.trackerStarted({ address, number, orderType: 'TO_GO', at: first.clock.now() })
  }
  await first.orders.page({ name: 1 }, true)
  await first.orders.page({ name: 2 }, false)
  await first.clock.advance(30_000)
  await first.orders.page({ name: 3 }, false)
  await first.clock.advance(40_000)
  const resumed = await setup({ store: first.store, history: first.history })
  await resumed.clock.advance(first.clock.now() - resumed.clock.now())
  await resumed.orders.resume()
  t.same([...resumed.paging].sort(), [
    ['A', true],
    ['C', false],
  ])
  t.equal(resumed.orders.get({ name: 2 }).paged, false, 'B ran out while the gateway was down')
  t.match(resumed.recorded, [{ type: 'ORDER_MODIFIED', order: { name: 2, paged: false } }])
})

t.test('paging effects wait until their write is durable, and follow the operations in order', async (t) => {
  const dir = t.testdir()
  // A group commit that waits 250 ms: each write stays appended and not yet durable a while
  // (the cancel below is appended well within it, even on a loaded machine).
  const store = new Store({ dataDir: dir, syncIntervalMs: 250 })
  const atCrashPoint: { point: FaultPoint; order: ActiveOrder; pagerCalls: string[] }[] = []
  const s: Awaited<ReturnType<typeof setup>> = await setup({
    store,
    fault: (point) => atCrashPoint.push({ point, order: s.orders.get({ name: 1 }), pagerCalls: [...s.pagerCalls] }),
  })
  await s.orders.trackerStarted({ address: 'A', number: 1, orderType: 'TO_GO', at: s.clock.now() })
  // Queued together: the cancel is appended before the page is durable.
  const paged = s.orders.page({ name: 1 }, true)
  const cancelled = s.orders.cancelPage({ name: 1 })
  await Promise.all([paged, cancelled])
  t.same(
    atCrashPoint.map(({ point, order, pagerCalls }) => ({ point, paged: order.paged, pagerCalls })),
    [
      { point: 'crash-before-paging-is-durable', paged: true, pagerCalls: [] },
      { point: 'crash-before-paging-is-durable', paged: false, pagerCalls: [] },
    ],
    'appended and visible, and the radio not yet told',
  )
  t.same(s.pagerCalls, ['page A', 'stop A'], 'once durable: the page, then the stop that followed it')
  t.same([...s.paging], [])
})

t.test('a failed write changes nothing: not in memory, not recorded', async (t) => {
  const s = await setup()
  const original = s.collection.put.bind(s.collection)
  s.collection.put = async () => {
    throw new DomainError('STORAGE_UNAVAILABLE')
  }
  await t.rejects(s.orders.create({ name: 1, requireTracker: false }), { name: 'DomainError', kind: 'STORAGE_UNAVAILABLE' } as never)
  t.same(s.orders.list(), [])
  t.same(s.recorded, [])
  s.collection.put = original
  await s.orders.create({ name: 1, requireTracker: false })
  t.equal(s.orders.list().length, 1, 'works again once storage is back')
})

t.test('radio events are applied in arrival order, and keep the inventory', async (t) => {
  const s = await setup()
  const at = s.clock.now()
  void s.orders.trackerStarted({ address: 'A', number: 4, orderType: 'ON_PREMISE', at })
  void s.orders.trackerLocated({ address: 'A', table: 2, at })
  void s.orders.trackerSeen({ address: 'A', battery: 80, linkQuality: 200, at: at + 1 })
  await s.orders.idle()
  t.match(s.orders.get({ name: 4 }), { state: 'located', locationName: 2, tracker: 'A' })
  t.match(s.trackers.byNumber(4), { address: 'A', battery: 80, linkQuality: 200, lastSeen: at + 1, order: { name: 4 } })
  void s.orders.trackerCleared({ address: 'A', at: at + 2 })
  await s.orders.idle()
  t.same(s.orders.list(), [])
  t.match(s.trackers.byNumber(4), { order: null })
  t.same(
    s.recorded.map((r) => r.type),
    ['ORDER_CREATED', 'ORDER_MODIFIED', 'ORDER_CLEARED'],
  )
})

t.test('a tracker that left the radio network leaves the inventory', async (t) => {
  const s = await setup()
  const at = s.clock.now()
  void s.orders.trackerStarted({ address: 'A', number: 4, orderType: 'ON_PREMISE', at })
  void s.orders.trackerCleared({ address: 'A', at })
  void s.orders.deviceLeft({ address: 'A', at })
  await s.orders.idle()
  t.equal(s.trackers.byNumber(4), undefined)
})

t.test(
  'property: through the real stores, random actions never leave an order active and in history, nor a duplicate name, nor a paged order without a tracker',
  async (t) => {
    const action = fc.oneof(
      fc.record({ kind: fc.constant('start' as const), n: fc.integer({ min: 1, max: 4 }), toGo: fc.boolean() }),
      fc.record({ kind: fc.constant('locate' as const), n: fc.integer({ min: 1, max: 4 }), table: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('radioClear' as const), n: fc.integer({ min: 1, max: 4 }) }),
      fc.record({
        kind: fc.constant('create' as const),
        n: fc.integer({ min: 1, max: 5 }),
        v1: fc.boolean(),
        loc: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      }),
      fc.record({ kind: fc.constant('clear' as const), n: fc.integer({ min: 1, max: 5 }) }),
      fc.record({ kind: fc.constant('clearAll' as const) }),
      fc.record({ kind: fc.constant('page' as const), n: fc.integer({ min: 1, max: 5 }), tracking: fc.boolean() }),
      fc.record({ kind: fc.constant('cancel' as const), n: fc.integer({ min: 1, max: 5 }) }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 30 }), async (actions) => {
        const s = await setup()
        const at = () => s.clock.now()
        for (const a of actions) {
          const address = `T${'n' in a ? a.n : 0}`
          try {
            if (a.kind === 'start') await s.orders.trackerStarted({ address, number: a.n, orderType: a.toGo ? 'TO_GO' : 'ON_PREMISE', at: at() })
            else if (a.kind === 'locate') await s.orders.trackerLocated({ address, table: a.table, at: at() })
            else if (a.kind === 'radioClear') await s.orders.trackerCleared({ address, at: at() })
            else if (a.kind === 'create') await s.orders.create({ name: a.n, locationName: a.loc, requireTracker: a.v1, dummyTracker: false })
            else if (a.kind === 'clear') await s.orders.clear({ name: a.n })
            else if (a.kind === 'clearAll') await s.orders.clearAll()
            else if (a.kind === 'page') await s.orders.page({ name: a.n }, a.tracking)
            else await s.orders.cancelPage({ name: a.n })
          } catch (error) {
            if (!(error instanceof DomainError)) throw error
          }
          await s.clock.advance(1000)
          const active = s.orders.list()
          const stored = (await s.collection.find({})).map((d) => d.uuid).sort()
          if (JSON.stringify(stored) !== JSON.stringify(active.map((o) => o.uuid).sort())) throw new Error('memory and NeDB disagree')
          for (const o of active) {
            if (s.history.has(o.uuid)) throw new Error(`${o.name} active and in history`)
            if (o.paged && !o.tracker) throw new Error(`${o.name} paged without a tracker`)
          }
          if (new Set(active.map((o) => o.name)).size !== active.length) throw new Error('duplicate active name')
          const expected = active
            .filter((o) => o.paged)
            .map((o) => `${o.tracker}:${o.tracking}`)
            .sort()
          const actual = [...s.paging].map(([k, v]) => `${k}:${v}`).sort()
          if (JSON.stringify(expected) !== JSON.stringify(actual)) throw new Error(`pager ${actual} vs orders ${expected}`)
          for (const record of s.trackers.list()) {
            const holder = active.find((o) => o.tracker === record.address)
            if ((holder?.uuid ?? null) !== (record.order?.uuid ?? null)) throw new Error(`inventory binding of ${record.address} is stale`)
          }
        }
      }),
      { numRuns: 60, seed: 42 },
    )
    t.pass('invariants held through the stores')
  },
)
