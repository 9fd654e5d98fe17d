// Extension: the floor plan the board draws, kept on the gateway.
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET answers the plan (the default at first); POST replaces it whole', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const first = await gw.json('GET /api/v2/floor', { token })
  t.match(first, { status: 200, body: { returnCode: 22, floor: { columns: 6, rows: 5 } } })
  t.equal(first.body.floor.tables.length, 30)
  const plan = {
    columns: 4,
    rows: 2,
    tables: [
      { table: 3, x: 3, y: 1 },
      { table: 9, x: 0, y: 0 },
    ],
  }
  t.same((await gw.json('POST /api/v2/floor', { token, body: plan })).body, { status: 200, returnCode: 22, floor: plan })
  t.same((await gw.json('GET /api/v2/floor', { token })).body.floor, plan)
})

t.test('a bad plan is 400 -21 naming the field, and changes nothing', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const before = (await gw.json('GET /api/v2/floor', { token })).body.floor
  const bad = await gw.json('POST /api/v2/floor', { token, body: { columns: 2, rows: 2, tables: [{ table: 1, x: 5, y: 0 }] } })
  t.same([bad.status, bad.body.returnCode], [400, -21])
  t.match(bad.body.message, /floor\.tables\[0\]: cell 5,0 is outside the 2x2 grid/)
  t.equal((await gw.json('POST /api/v2/floor', { token, rawBody: '{"columns":' })).body.returnCode, -31)
  t.same((await gw.json('GET /api/v2/floor', { token })).body.floor, before)
  t.equal((await gw.json('GET /api/v2/floor')).status, 401)
})

t.test('tables may belong to named areas; a bad name is 400 -21; a plan without areas stays valid', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const plan = {
    columns: 3,
    rows: 1,
    tables: [
      { table: 1, x: 0, y: 0, area: 'Terrace' },
      { table: 2, x: 1, y: 0, area: 'Bar' },
      { table: 3, x: 2, y: 0 },
    ],
  }
  t.same((await gw.json('POST /api/v2/floor', { token, body: plan })).body.floor, plan)
  t.same((await gw.json('GET /api/v2/floor', { token })).body.floor, plan)
  const bad: [unknown, RegExp][] = [
    ['', /floor\.tables\[0\]\.area: /],
    [' Terrace', /floor\.tables\[0\]\.area: an area name has no spaces around it/],
    ['x'.repeat(25), /floor\.tables\[0\]\.area: /],
    [7, /floor\.tables\[0\]\.area: /],
  ]
  for (const [area, message] of bad) {
    const answer = await gw.json('POST /api/v2/floor', { token, body: { columns: 1, rows: 1, tables: [{ table: 1, x: 0, y: 0, area }] } })
    t.same([answer.status, answer.body.returnCode], [400, -21], JSON.stringify(area))
    t.match(answer.body.message, message)
  }
  t.same((await gw.json('GET /api/v2/floor', { token })).body.floor, plan, 'unchanged')
  const old = { columns: 1, rows: 1, tables: [{ table: 4, x: 0, y: 0 }] }
  t.same((await gw.json('POST /api/v2/floor', { token, body: old })).body.floor, old)
})
