import fc from 'fast-check'
import t from 'tap'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { ActiveSet } from '../../../lib/orders/active-set.ts'
import { step as machineStep, type OrdersAction, type StepResult } from '../../../lib/orders/machine.ts'
import type { ActiveOrder } from '../../../lib/orders/types.ts'

let uuidCounter = 0
const nextUuid = () => `00000000-0000-4000-8000-${String(++uuidCounter).padStart(12, '0')}`

/** A step from the orders in this list (the examples below write their state as lists). */
const step = (active: ActiveOrder[], action: OrdersAction): StepResult => machineStep(new ActiveSet(active), action)

function run(active: ActiveOrder[], action: OrdersAction): { active: ActiveOrder[]; result: StepResult } {
  const set = new ActiveSet(active)
  const result = machineStep(set, action)
  for (const write of result.writes) set.apply(write)
  return { active: [...set], result }
}

const at = 1_000_000
const create = (name: number, extra: Partial<Extract<OrdersAction, { kind: 'create' }>> = {}): OrdersAction => ({
  kind: 'create',
  name,
  tracker: null,
  requireTracker: false,
  at,
  uuid: nextUuid(),
  ...extra,
})

t.test('radio start creates a started order bound to the tracker, with the starter type', async (t) => {
  const { active, result } = run([], { kind: 'radioStart', address: 'A1', number: 1, orderType: 'TO_GO', at, uuid: nextUuid() })
  t.equal(result.writes.length, 1)
  t.equal(result.writes[0].type, 'ORDER_CREATED')
  t.match(active[0], { name: 1, state: 'started', orderType: 'TO_GO', tracker: 'A1', hadTracker: true, created: at, stateChanged: at })
})

t.test('a second start on the other starter changes the type (last activation wins), same uuid', async (t) => {
  let { active } = run([], { kind: 'radioStart', address: 'A1', number: 1, orderType: 'TO_GO', at, uuid: nextUuid() })
  const uuid = active[0].uuid
  const second = run(active, { kind: 'radioStart', address: 'A1', number: 1, orderType: 'ON_PREMISE', at: at + 1, uuid: nextUuid() })
  active = second.active
  t.equal(second.result.writes[0].type, 'ORDER_MODIFIED')
  t.match(active, [{ uuid, orderType: 'ON_PREMISE', state: 'started' }])
  const third = run(active, { kind: 'radioStart', address: 'A1', number: 1, orderType: 'ON_PREMISE', at: at + 2, uuid: nextUuid() })
  t.same(third.result.writes, [], 'same start again changes nothing')
})

t.test('radio locate locates the order of that tracker; a move changes only the table', async (t) => {
  let { active } = run([], { kind: 'radioStart', address: 'A1', number: 1, orderType: 'TO_GO', at, uuid: nextUuid() })
  ;({ active } = run(active, { kind: 'radioLocate', address: 'A1', table: 4, at: at + 10 }))
  t.match(active[0], { state: 'located', locationName: 4, stateChanged: at + 10, located: at + 10 })
  const moved = run(active, { kind: 'radioLocate', address: 'A1', table: 5, at: at + 20 })
  t.match(moved.active[0], { state: 'located', locationName: 5, stateChanged: at + 10, located: at + 10 })
  t.same(run(moved.active, { kind: 'radioLocate', address: 'A1', table: 5, at: at + 30 }).result.writes, [])
  t.same(run(active, { kind: 'radioLocate', address: 'ZZ', table: 5, at }).result.writes, [], 'unknown tracker ignored')
})

t.test('radio clear clears the order of that tracker and stops its paging', async (t) => {
  let { active } = run([], { kind: 'radioStart', address: 'A1', number: 1, orderType: 'TO_GO', at, uuid: nextUuid() })
  ;({ active } = run(active, { kind: 'page', ref: { name: 1 }, tracking: true, at }))
  const { active: after, result } = run(active, { kind: 'radioClear', address: 'A1', at: at + 5 })
  t.same(after, [])
  t.equal(result.writes[0].type, 'ORDER_CLEARED')
  t.match(result.writes[0].order, { state: 'cleared', paged: false, stateChanged: at + 5 })
  t.same(result.writes[0].effects, [{ kind: 'stopPaging', tracker: 'A1' }])
})

t.test('API create: new, already started (1009), already located (1010)', async (t) => {
  let { active, result } = run([], create(7, { orderType: 'TO_GO' }))
  t.match(result, { writes: [{ type: 'ORDER_CREATED' }], order: { state: 'started', orderType: 'TO_GO', tracker: null, hadTracker: false } })
  t.equal(result.outcome, undefined)
  ;({ active, result } = run(active, create(7, { locationName: 3 })))
  t.equal(result.outcome, 'ALREADY_STARTED')
  t.match(result.order, { state: 'located', locationName: 3, orderType: 'TO_GO' }, 'type kept when not given')
  ;({ active, result } = run(active, create(7, {})))
  t.equal(result.outcome, 'ALREADY_LOCATED')
  t.same(result.writes, [])
  t.equal(active.length, 1)
})

t.test('API create requiring a tracker refuses a new order without one, but not an existing order', async (t) => {
  t.throws(() => step([], create(2, { requireTracker: true })), new DomainError('TRACKER_UNKNOWN'))
  const { active } = run([], create(2))
  t.doesNotThrow(() => step(active, create(2, { requireTracker: true })))
  const bound = run([], create(3, { requireTracker: true, tracker: 'dummy-3' }))
  t.equal(bound.active[0].tracker, 'dummy-3')
})

t.test('page needs a tracker; cancel distinguishes never-had-a-tracker, nothing paged and paged', async (t) => {
  let { active } = run([], create(1))
  t.throws(() => step(active, { kind: 'page', ref: { name: 1 }, tracking: true, at }), new DomainError('NO_TRACKER_TO_PAGE'))
  t.throws(() => step(active, { kind: 'cancelPage', ref: { name: 1 }, at }), new DomainError('NO_TRACKER_TO_CANCEL'))
  t.throws(() => step(active, { kind: 'page', ref: { name: 9 }, tracking: true, at }), new DomainError('ORDER_NOT_FOUND'))
  ;({ active } = run(active, { kind: 'radioStart', address: 'B', number: 1, orderType: 'TO_GO', at, uuid: nextUuid() }))
  t.equal(step(active, { kind: 'cancelPage', ref: { name: 1 }, at }).outcome, 'NOTHING_TO_CANCEL')
  const paged = run(active, { kind: 'page', ref: { uuid: active[0].uuid }, tracking: false, at })
  t.match(paged.result.writes, [
    { type: 'ORDER_PAGED', order: { paged: true, tracking: false, pagedAt: at }, effects: [{ kind: 'page', tracker: 'B', tracking: false }] },
  ])
  const cancelled = run(paged.active, { kind: 'cancelPage', ref: { name: 1 }, at })
  t.equal(cancelled.result.outcome, 'PAGING_CANCELLED')
  t.match(cancelled.result.writes, [{ type: 'ORDER_MODIFIED', order: { paged: false }, effects: [{ kind: 'stopPaging', tracker: 'B' }] }])
})

t.test('a single page lapses; a tracking page ignores a lapse report', async (t) => {
  let { active } = run([], { kind: 'radioStart', address: 'B', number: 1, orderType: 'TO_GO', at, uuid: nextUuid() })
  ;({ active } = run(active, { kind: 'page', ref: { name: 1 }, tracking: true, at }))
  t.same(step(active, { kind: 'pageLapsed', tracker: 'B', at }).writes, [])
  ;({ active } = run(active, { kind: 'page', ref: { name: 1 }, tracking: false, at }))
  const lapsed = run(active, { kind: 'pageLapsed', tracker: 'B', at })
  t.match(lapsed.active[0], { paged: false, pagedAt: null })
})

t.test('clearAll clears every order', async (t) => {
  let { active } = run([], create(1))
  ;({ active } = run(active, create(2)))
  const { active: after, result } = run(active, { kind: 'clearAll', at })
  t.same(after, [])
  t.same(
    result.writes.map((w) => [w.type, w.order.name]),
    [
      ['ORDER_CLEARED', 1],
      ['ORDER_CLEARED', 2],
    ],
  )
})

t.test('a tracker re-started for another number leaves its old order (and its paging)', async (t) => {
  let { active } = run([], { kind: 'radioStart', address: 'A', number: 1, orderType: 'TO_GO', at, uuid: nextUuid() })
  ;({ active } = run(active, { kind: 'page', ref: { name: 1 }, tracking: true, at }))
  const { active: after, result } = run(active, { kind: 'radioStart', address: 'A', number: 2, orderType: 'TO_GO', at, uuid: nextUuid() })
  t.match(
    after.find((o) => o.name === 1),
    { tracker: null, paged: false, hadTracker: true },
  )
  t.match(
    after.find((o) => o.name === 2),
    { tracker: 'A' },
  )
  t.same(result.writes[0].effects, [{ kind: 'stopPaging', tracker: 'A' }])
})

// ---- properties -------------------------------------------------------------------------

const addresses = ['A1', 'A2', 'A3', 'A4']
type Gen = (active: ActiveOrder[], paging: Map<string, boolean>) => OrdersAction | undefined

const refArb = fc.record({ byUuid: fc.boolean(), pick: fc.nat(), name: fc.integer({ min: 1, max: 6 }) })
function ref(active: ActiveOrder[], r: { byUuid: boolean; pick: number; name: number }) {
  if (r.byUuid && active.length) return { uuid: active[r.pick % active.length].uuid }
  return { name: r.name }
}

const actionArb: fc.Arbitrary<Gen> = fc.oneof(
  fc.record({ a: fc.constantFrom(...addresses), n: fc.integer({ min: 1, max: 6 }), toGo: fc.boolean() }).map(
    ({ a, n, toGo }): Gen =>
      () => ({ kind: 'radioStart', address: a, number: n, orderType: toGo ? 'TO_GO' : 'ON_PREMISE', at, uuid: nextUuid() }),
  ),
  fc.record({ a: fc.constantFrom(...addresses), table: fc.integer({ min: 1, max: 4 }) }).map(
    ({ a, table }): Gen =>
      () => ({ kind: 'radioLocate', address: a, table, at }),
  ),
  fc.constantFrom(...addresses).map(
    (a): Gen =>
      () => ({ kind: 'radioClear', address: a, at }),
  ),
  fc
    .record({
      n: fc.integer({ min: 1, max: 6 }),
      type: fc.option(fc.constantFrom('TO_GO' as const, 'ON_PREMISE' as const), { nil: undefined }),
      loc: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      tracker: fc.option(fc.constantFrom(...addresses), { nil: null }),
      requireTracker: fc.boolean(),
    })
    .map(
      ({ n, type, loc, tracker, requireTracker }): Gen =>
        () =>
          create(n, { orderType: type, locationName: loc, tracker, requireTracker }),
    ),
  refArb.map(
    (r): Gen =>
      (active) => ({ kind: 'clear', ref: ref(active, r), at }),
  ),
  fc.constant((): OrdersAction => ({ kind: 'clearAll', at })),
  fc.record({ r: refArb, tracking: fc.boolean() }).map(
    ({ r, tracking }): Gen =>
      (active) => ({ kind: 'page', ref: ref(active, r), tracking, at }),
  ),
  refArb.map(
    (r): Gen =>
      (active) => ({ kind: 'cancelPage', ref: ref(active, r), at }),
  ),
  // The scheduler reports a single page that ran out (it forgets the job first).
  fc.nat().map(
    (i): Gen =>
      (_active, paging) => {
        const once = [...paging].filter(([, tracking]) => !tracking).map(([tracker]) => tracker)
        if (!once.length) return undefined
        const tracker = once[i % once.length]
        paging.delete(tracker)
        return { kind: 'pageLapsed', tracker, at }
      },
  ),
)

t.test('property: random radio and API actions keep every invariant', async (t) => {
  fc.assert(
    fc.property(fc.array(actionArb, { minLength: 1, maxLength: 60 }), (gens) => {
      // One set for the whole run: its lookups are kept up to date by apply(), write by write.
      const set = new ActiveSet()
      const history = new Map<string, number>()
      // What the scheduler would be doing after the effects: tracker → tracking.
      const paging = new Map<string, boolean>()
      for (const gen of gens) {
        const action = gen([...set], paging)
        if (!action) continue
        let result: StepResult
        try {
          result = machineStep(set, action)
        } catch (error) {
          if (!(error instanceof DomainError)) throw error
          continue
        }
        for (const write of result.writes) {
          if (write.type === 'ORDER_CLEARED') history.set(write.order.uuid, (history.get(write.order.uuid) ?? 0) + 1)
          set.apply(write)
          for (const effect of write.effects) {
            if (effect.kind === 'page') paging.set(effect.tracker, effect.tracking)
            else paging.delete(effect.tracker)
          }
        }
        const active = [...set]
        // The set's lookups name exactly the orders a search of its list finds.
        for (const name of [1, 2, 3, 4, 5, 6]) if (set.byName(name) !== active.find((o) => o.name === name)) throw new Error(`byName(${name}) is stale`)
        for (const tracker of addresses)
          if (set.byTracker(tracker) !== active.find((o) => o.tracker === tracker)) throw new Error(`byTracker(${tracker}) is stale`)
        for (const order of active) if (set.byUuid(order.uuid) !== order) throw new Error(`byUuid(${order.uuid}) is stale`)
        if (set.size !== active.length) throw new Error('size is stale')
        // Never both active and in history; each order enters history once.
        for (const order of active) if (history.has(order.uuid)) throw new Error(`order ${order.uuid} both active and in history`)
        for (const [uuid, times] of history) if (times !== 1) throw new Error(`${uuid} cleared ${times} times`)
        // No duplicate active name or uuid; a tracker belongs to one order at most.
        const names = active.map((o) => o.name)
        if (new Set(names).size !== names.length) throw new Error(`duplicate active name in ${names}`)
        if (new Set(active.map((o) => o.uuid)).size !== active.length) throw new Error('duplicate uuid')
        const trackers = active.filter((o) => o.tracker).map((o) => o.tracker)
        if (new Set(trackers).size !== trackers.length) throw new Error(`tracker bound twice: ${trackers}`)
        // A paged order has a tracker, and the scheduler pages exactly the paged orders' trackers.
        for (const order of active) {
          if (order.paged && order.tracker === null) throw new Error(`paged order ${order.name} has no tracker`)
          if (order.state === 'cleared') throw new Error('a cleared order stayed active')
          if ((order.state === 'located') !== (order.locationName !== null)) throw new Error('located iff it has a location')
        }
        const expected = new Map(active.filter((o) => o.paged).map((o) => [o.tracker as string, o.tracking]))
        if (JSON.stringify([...expected].sort()) !== JSON.stringify([...paging].sort())) {
          throw new Error(`scheduler pages ${JSON.stringify([...paging])}, orders say ${JSON.stringify([...expected])}`)
        }
      }
    }),
    { numRuns: 400, seed: 20261122 },
  )
  t.pass('invariants held')
})
