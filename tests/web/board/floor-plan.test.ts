import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { addTable, areaOfOrder, areasOf, moveTable, ordersByTable, removeTable, resizePlan, setArea, tableAt } from '../../../web/board/floor-plan.js'

const plan = {
  columns: 2,
  rows: 2,
  tables: [
    { table: 1, x: 0, y: 0 },
    { table: 2, x: 1, y: 0 },
  ],
}

t.test('moving a table to a free cell, or swapping with the table there', async (t) => {
  t.same(moveTable(plan, 1, 0, 1).tables, [
    { table: 1, x: 0, y: 1 },
    { table: 2, x: 1, y: 0 },
  ])
  t.same(moveTable(plan, 1, 1, 0).tables, [
    { table: 1, x: 1, y: 0 },
    { table: 2, x: 0, y: 0 },
  ])
  t.equal(moveTable(plan, 9, 0, 1), plan, 'an unknown table moves nothing')
  t.same(tableAt(plan, 1, 0), { table: 2, x: 1, y: 0 })
})

t.test('adding, removing and resizing', async (t) => {
  t.same(addTable(plan, 3).tables.at(-1), { table: 3, x: 0, y: 1 })
  const full = addTable(addTable(plan, 3), 4)
  t.same(addTable(full, 5), { columns: 2, rows: 3, tables: [...full.tables, { table: 5, x: 0, y: 2 }] }, 'a full grid grows a row')
  t.equal(addTable(plan, 1), plan, 'a table already placed is not added twice')
  t.equal(addTable(plan, 0), plan)
  t.same(removeTable(plan, 1).tables, [{ table: 2, x: 1, y: 0 }])
  t.same(
    resizePlan(plan, 1, 2),
    {
      columns: 1,
      rows: 2,
      tables: [
        { table: 1, x: 0, y: 0 },
        { table: 2, x: 0, y: 1 },
      ],
    },
    'tables outside move inside',
  )
  t.equal(resizePlan(plan, 1, 1), plan, 'too small for the tables: unchanged')
})

t.test('orders grouped by table', async (t) => {
  const groups = ordersByTable([
    { name: 1, locationName: 4 },
    { name: 2, locationName: null },
    { name: 3, locationName: 4 },
  ])
  t.same([...groups.keys()], ['4', ''])
  t.equal(groups.get('4').length, 2)
})

t.test('areas: set, cleared, kept when a table moves, listed once, and an order found in its area', async (t) => {
  const terrace = setArea(setArea(plan, 1, '  Terrace '), 2, 'Bar')
  t.same(terrace.tables, [
    { table: 1, x: 0, y: 0, area: 'Terrace' },
    { table: 2, x: 1, y: 0, area: 'Bar' },
  ])
  t.same(areasOf(terrace), ['Bar', 'Terrace'])
  t.same(areasOf(null), [])
  t.same(moveTable(terrace, 1, 1, 0).tables, [
    { table: 1, x: 1, y: 0, area: 'Terrace' },
    { table: 2, x: 0, y: 0, area: 'Bar' },
  ])
  t.same(setArea(terrace, 1, '').tables[0], { table: 1, x: 0, y: 0 }, 'an empty name clears it')
  t.equal(areaOfOrder(terrace, { locationName: '1' }), 'Terrace')
  t.equal(areaOfOrder(terrace, { locationName: '' }), undefined, 'at no table yet')
  t.equal(areaOfOrder(terrace, { locationName: '7' }), undefined, 'at a table not on the plan')
  t.equal(areaOfOrder(null, { locationName: '1' }), undefined, 'no plan read yet')
})
