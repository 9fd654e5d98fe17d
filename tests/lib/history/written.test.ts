import path from 'node:path'
import t from 'tap'
import { HistoryStore } from '../../../lib/history/store.ts'
import { shiftRows, WrittenColumns, WrittenRows } from '../../../lib/history/written.ts'
import type { OrderSummary } from '../../../lib/orders/types.ts'

const summary = (n: number, at: number, located: number | null = null): OrderSummary => ({
  uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: n,
  orderType: 'ON_PREMISE',
  locationName: null,
  orderStarted: at,
  orderLocated: located,
  orderCleared: at + 60_000,
})

t.test('WrittenRows keeps ranges of consecutive positions', async (t) => {
  const rows = new WrittenRows()
  t.same(rows.ranges(), [])
  for (const seq of [3, 4, 5, 9, 10, 12]) rows.add(seq)
  t.same(rows.ranges(), [
    [3, 5],
    [9, 10],
    [12, 12],
  ])
})

t.test('a step moves the rows this process wrote, not those another process imported', async (t) => {
  const file = path.join(t.testdir({}), 'history.sqlite')
  const gateway = new HistoryStore(file)
  const importer = new HistoryStore(file)
  t.teardown(() => {
    gateway.close()
    importer.close()
  })
  t.equal(gateway.insert(summary(1, 1_000_000, 1_030_000)), true)
  t.equal(gateway.insert(summary(1, 1_000_000)), false, 'a duplicate takes no position and is not tracked')
  t.equal(importer.insert(summary(2, 5_000_000)), true)
  t.equal(gateway.insert(summary(3, 2_000_000)), true)

  t.equal(gateway.shiftWritten(10_000), 2)
  t.match(gateway.get(summary(1, 0).uuid), { orderStarted: 1_010_000, orderLocated: 1_040_000, orderCleared: 1_070_000 })
  t.match(gateway.get(summary(3, 0).uuid), { orderStarted: 2_010_000, orderLocated: null })
  t.match(gateway.get(summary(2, 0).uuid), { orderStarted: 5_000_000 }, 'an imported row keeps its time')
  t.equal(gateway.shiftWritten(0), 0, 'nothing to do')
  t.equal(importer.shiftWritten(-10_000), 1)
  t.match(gateway.get(summary(2, 0).uuid), { orderStarted: 4_990_000 })
})

t.test('a failed shift changes nothing', async (t) => {
  const gateway = new HistoryStore(':memory:')
  t.teardown(() => gateway.close())
  gateway.insert(summary(1, 1000))
  gateway.insert(summary(2, 2000))
  gateway.db.exec(`CREATE TRIGGER refuse BEFORE UPDATE ON summaries WHEN NEW.seq = 2 BEGIN SELECT RAISE(ABORT, 'refused'); END`)
  t.throws(
    () =>
      shiftRows(
        gateway.db,
        [
          [1, 1],
          [2, 2],
        ],
        500,
      ),
    /refused/,
  )
  t.match(gateway.get(summary(1, 0).uuid), { orderStarted: 1000 }, 'rolled back')
})

t.test('a step moves only the times of a row this process stamped: an order started before a restart keeps its start', async (t) => {
  const gateway = new HistoryStore(':memory:')
  t.teardown(() => gateway.close())
  // Started by an earlier run (on its clock), located and cleared by this one.
  gateway.insert(summary(1, 1_000_000, 1_030_000), { orderStarted: false, orderLocated: true, orderCleared: true })
  // Started on a clock known right, cleared on this run's unknown one.
  gateway.insert(summary(2, 2_000_000), { orderStarted: false, orderLocated: false, orderCleared: true })
  // All of it this run's.
  gateway.insert(summary(3, 3_000_000, 3_010_000))
  t.equal(gateway.shiftWritten(5000), 3)
  t.match(gateway.get(summary(1, 0).uuid), { orderStarted: 1_000_000, orderLocated: 1_035_000, orderCleared: 1_065_000 })
  t.match(gateway.get(summary(2, 0).uuid), { orderStarted: 2_000_000, orderLocated: null, orderCleared: 2_065_000 })
  t.match(gateway.get(summary(3, 0).uuid), { orderStarted: 3_005_000, orderLocated: 3_015_000, orderCleared: 3_065_000 })
  const columns = new WrittenColumns()
  columns.add(7, { orderStarted: false, orderLocated: false, orderCleared: false })
  t.equal(shiftRows(gateway.db, columns, 1000), 0, 'nothing stamped, nothing moved')
})

t.test('a step that takes a row’s end back before a start an earlier run took: the start gives way', async (t) => {
  // Nemesis seed 60118: an order created by a run on a clock 5 h ahead that never heard
  // "synchronised", cleared in the next run, whose clock a step then took back to the
  // high-water mark: the row's end (this run's) moved 5 h back, its start (the earlier
  // run's, which no step mends) stayed, and the row ended before it started.
  const gateway = new HistoryStore(':memory:')
  t.teardown(() => gateway.close())
  gateway.insert(summary(1, 10_000_000, 10_030_000), { orderStarted: false, orderLocated: false, orderCleared: true })
  gateway.insert(summary(2, 20_000_000, 20_030_000), { orderStarted: false, orderLocated: true, orderCleared: true })
  t.equal(gateway.shiftWritten(-5 * 3_600_000), 2)
  const end = 10_060_000 - 5 * 3_600_000
  t.match(gateway.get(summary(1, 0).uuid), { orderStarted: end, orderLocated: end, orderCleared: end }, 'no negative span, located within it')
  const end2 = 20_060_000 - 5 * 3_600_000
  t.match(gateway.get(summary(2, 0).uuid), { orderStarted: end2, orderLocated: end2, orderCleared: end2 })
})
