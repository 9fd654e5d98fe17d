import t from 'tap'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { defaultFloor, FloorService, parseFloor } from '../../../lib/settings/floor.ts'
import { Store } from '../../../lib/store/db.ts'

t.test('the default floor seats tables 1-30 in six columns', async (t) => {
  const plan = defaultFloor()
  t.same([plan.columns, plan.rows, plan.tables.length], [6, 5, 30])
  t.same(plan.tables[7], { table: 8, x: 1, y: 1 })
  t.same(parseFloor(plan), plan, 'the default is a valid plan')
})

t.test('a plan is refused whole, naming the field', async (t) => {
  const cases: [unknown, RegExp][] = [
    [{ columns: 0, rows: 2, tables: [] }, /^floor\.columns: /],
    [{ columns: 2, rows: 2, tables: [{ table: 1, x: 2, y: 0 }] }, /^floor\.tables\[0\]: cell 2,0 is outside the 2x2 grid/],
    [
      {
        columns: 2,
        rows: 2,
        tables: [
          { table: 1, x: 0, y: 0 },
          { table: 1, x: 1, y: 0 },
        ],
      },
      /^floor\.tables\[1\]\.table: table 1 is placed twice/,
    ],
    [
      {
        columns: 2,
        rows: 2,
        tables: [
          { table: 1, x: 0, y: 0 },
          { table: 2, x: 0, y: 0 },
        ],
      },
      /^floor\.tables\[1\]: two tables in cell 0,0/,
    ],
    [{ columns: 2, rows: 2, tables: [{ table: 1.5, x: 0, y: 0 }] }, /^floor\.tables\[0\]\.table: /],
    [{ columns: 2, rows: 2, tables: [], extra: true }, /^floor: /],
    [null, /^floor: /],
    [{ columns: 1, rows: 1, tables: [{ table: 1, x: 0, y: 0, area: 'Bar\n' }] }, /^floor\.tables\[0\]\.area: an area name has no spaces around it/],
  ]
  for (const [input, message] of cases) {
    let caught: unknown
    try {
      parseFloor(input)
    } catch (error) {
      caught = error
    }
    t.ok(caught instanceof DomainError && caught.kind === 'SETTINGS_VALUE_INVALID', `-21 for ${JSON.stringify(input)}`)
    t.match((caught as DomainError).detail, message)
  }
})

t.test('a saved plan survives a restart; an unreadable one falls back to the default', async (t) => {
  const dataDir = t.testdir()
  const store = new Store({ dataDir })
  const service = await FloorService.open(await store.collection('floor'))
  const plan = {
    columns: 3,
    rows: 1,
    tables: [
      { table: 12, x: 2, y: 0 },
      { table: 14, x: 0, y: 0, area: 'Terrace' },
    ],
  }
  await t.rejects(service.update({ ...plan, rows: 0 }))
  t.same(service.get(), defaultFloor(), 'nothing changed')
  t.same(await service.update(plan), plan)
  await store.close()
  const reopened = new Store({ dataDir })
  t.same((await FloorService.open(await reopened.collection('floor'))).get(), plan)
  const collection = await reopened.collection<{ key: 'floor' } & ReturnType<typeof defaultFloor>>('floor')
  await collection.update({ key: 'floor' }, { key: 'floor', columns: 'many' } as never, { upsert: true })
  t.same((await FloorService.open(collection)).get(), defaultFloor())
  await reopened.close()
})
