import t from 'tap'
import { ActiveSet } from '../../../lib/orders/active-set.ts'
import type { ActiveOrder } from '../../../lib/orders/types.ts'

const order = (uuid: string, name: number, tracker: string | null = null): ActiveOrder => ({
  uuid,
  name,
  orderType: 'ON_PREMISE',
  state: 'started',
  locationName: null,
  created: name,
  stateChanged: name,
  located: null,
  tracker,
  hadTracker: tracker !== null,
  paged: false,
  tracking: false,
  pagedAt: null,
})

t.test('lists orders in the order they joined; a new version keeps its place', async (t) => {
  const set = new ActiveSet([order('a', 1), order('b', 2)])
  set.apply({ type: 'ORDER_CREATED', order: order('c', 3), effects: [] })
  const moved = { ...order('a', 1), state: 'located' as const, locationName: 4 }
  set.apply({ type: 'ORDER_MODIFIED', order: moved, effects: [] })
  t.same(
    [...set].map((o) => o.uuid),
    ['a', 'b', 'c'],
  )
  t.equal(set.byUuid('a'), moved, 'the new version replaced the old one')
  t.equal(set.byName(1), moved)
  t.equal(set.size, 3)
})

t.test('a cleared order leaves every lookup', async (t) => {
  const set = new ActiveSet([order('a', 1, 'T1'), order('b', 2)])
  set.apply({ type: 'ORDER_CLEARED', order: { ...order('a', 1, 'T1'), state: 'cleared' }, effects: [] })
  t.same(
    [...set].map((o) => o.uuid),
    ['b'],
  )
  t.equal(set.byUuid('a'), undefined)
  t.equal(set.byName(1), undefined)
  t.equal(set.byTracker('T1'), undefined)
  t.equal(set.size, 1)
})

t.test('a tracker handed from one order to another is found on its new order', async (t) => {
  const set = new ActiveSet([order('a', 1, 'T1'), order('b', 2)])
  // What the state machine writes when order 2 takes order 1's tracker: 1 loses it, then 2 gets it.
  set.apply({ type: 'ORDER_MODIFIED', order: order('a', 1, null), effects: [] })
  set.apply({ type: 'ORDER_MODIFIED', order: order('b', 2, 'T1'), effects: [] })
  t.equal(set.byTracker('T1')?.uuid, 'b')
  // In the other order, the later write still wins and the earlier owner's version does not take it back.
  set.apply({ type: 'ORDER_MODIFIED', order: order('a', 1, 'T2'), effects: [] })
  set.apply({ type: 'ORDER_MODIFIED', order: order('b', 2, 'T2'), effects: [] })
  set.apply({ type: 'ORDER_MODIFIED', order: order('a', 1, null), effects: [] })
  t.equal(set.byTracker('T2')?.uuid, 'b', 'order 1 dropping T2 leaves it with order 2')
  t.equal(set.byTracker('T1'), undefined, 'a tracker nobody holds any more is gone')
})
