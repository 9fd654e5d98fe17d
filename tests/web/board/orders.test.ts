import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { OrderBoard, formatDuration, levelOf } from '../../../web/board/orders.js'

const order = (fields: Record<string, unknown>) => ({
  uuid: 'u-1',
  name: '7',
  orderType: 'ON_PREMISE',
  locationName: '',
  state: 'started',
  paged: false,
  elapsedTime: 0,
  ...fields,
})

t.test('colour against the target: green, amber from 75 %, red from the target', async (t) => {
  t.equal(levelOf(0, 300), 'green')
  t.equal(levelOf(224, 300), 'green')
  t.equal(levelOf(225, 300), 'amber')
  t.equal(levelOf(299, 300), 'amber')
  t.equal(levelOf(300, 300), 'red')
  t.equal(levelOf(599, 300), 'red')
  t.equal(levelOf(600, 300), 'critical', 'twice the target: the second late stage')
})

t.test('durations read as m:ss or h:mm:ss', async (t) => {
  t.equal(formatDuration(0), '0:00')
  t.equal(formatDuration(75.9), '1:15')
  t.equal(formatDuration(3725), '1:02:05')
  t.equal(formatDuration(-4), '0:00')
})

t.test('the board keeps orders by UUID, oldest first, and ignores stale frames', async (t) => {
  const board = new OrderBoard()
  board.replace([order({ uuid: 'a', name: '1', elapsedTime: 10 }), order({ uuid: 'b', name: '2', elapsedTime: 60 })], 100_000)
  t.same(
    board.list().map((o: any) => o.name),
    ['2', '1'],
    'the one waiting longest first',
  )
  t.equal(board.list()[0].startedAt, 40_000, 'start time in the browser clock, from elapsedTime')

  t.ok(board.apply({ ...order({ uuid: 'a', name: '1', state: 'located', locationName: '4', elapsedTime: 12 }), type: 'ORDER_MODIFIED', seq: 5 }, 102_000))
  t.equal(board.list()[1].locationName, '4')
  t.notOk('type' in board.list()[1], 'the frame type is not an order field')
  t.notOk(board.apply({ ...order({ uuid: 'a', name: '1', state: 'started' }), type: 'ORDER_MODIFIED', seq: 4 }), 'older seq ignored')
  t.equal(board.list()[1].state, 'located')

  // An API answer (no seq) applies but keeps the seq, so older frames stay stale.
  t.ok(board.apply(order({ uuid: 'a', name: '1', state: 'located', locationName: '4', paged: true, elapsedTime: 13 }), 103_000))
  t.equal(board.list()[1].paged, true)
  t.notOk(board.apply({ ...order({ uuid: 'a', name: '1' }), type: 'ORDER_MODIFIED', seq: 5 }))

  board.patch('a', { paged: false })
  t.equal(board.list()[1].paged, false)
  board.patch('nope', { paged: true })
  t.equal(board.size, 2, 'patching an unknown order adds nothing')

  t.ok(board.apply({ ...order({ uuid: 'b', name: '2', state: 'cleared' }), type: 'ORDER_CLEARED', seq: 6 }))
  t.same(
    board.list().map((o: any) => o.uuid),
    ['a'],
  )
  board.remove('a')
  t.equal(board.size, 0)
})

t.test('lateNow counts the active orders at or beyond the target', async (t) => {
  const { lateNow } = await import('../../../web/board/orders.js' as string)
  const now = 1_000_000
  const orders = [{ startedAt: now - 400_000 }, { startedAt: now - 300_000 }, { startedAt: now - 100_000 }]
  t.equal(lateNow(orders, now, 300), 2)
  t.equal(lateNow([], now, 300), 0)
})
