import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('DELETE /api/v2/accesstoken revokes the caller: 1001, and the token stops working at once', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('pos')
  const other = await gw.issueToken('kds')
  const { status, body } = await gw.json('DELETE /api/v2/accesstoken', { token })
  t.equal(status, 200)
  t.match(body, { status: 200, returnCode: 1001, revoked: 1 })
  const again = await gw.json('GET /api/v2/accesstoken', { token })
  t.equal(again.status, 401)
  t.equal(again.body.returnCode, -2)
  t.equal((await gw.json('GET /api/v2/accesstoken', { token: other })).status, 200, 'other tokens still work')
})

t.test('DELETE ?name= revokes every token of that name', async (t) => {
  const gw = await testGateway()
  const admin = await gw.issueToken('admin')
  const kds1 = await gw.issueToken('kds')
  const kds2 = await gw.issueToken('kds')
  const { status, body } = await gw.json('DELETE /api/v2/accesstoken?name=kds', { token: admin })
  t.equal(status, 200)
  t.match(body, { returnCode: 1001, revoked: 2 })
  for (const gone of [kds1, kds2]) t.equal((await gw.json('GET /api/v2/accesstoken', { token: gone })).status, 401)
  t.equal((await gw.json('GET /api/v2/accesstoken', { token: admin })).status, 200)
})

t.test('DELETE ?name= with an unknown name is 404 -6; a bad name 400 -4; nothing changes', async (t) => {
  const gw = await testGateway()
  const admin = await gw.issueToken('admin')
  const unknown = await gw.json('DELETE /api/v2/accesstoken?name=nobody', { token: admin })
  t.equal(unknown.status, 404)
  t.equal(unknown.body.returnCode, -6)
  const bad = await gw.json('DELETE /api/v2/accesstoken?name=bad%20name', { token: admin })
  t.equal(bad.status, 400)
  t.equal(bad.body.returnCode, -4)
  const empty = await gw.json('DELETE /api/v2/accesstoken?name=', { token: admin })
  t.equal(empty.status, 400)
  t.equal(empty.body.returnCode, -4)
  t.equal(gw.services.tokens.list().length, 1)
})

t.test('DELETE without a token is 401 -2 and revokes nothing', async (t) => {
  const gw = await testGateway()
  await gw.issueToken('pos')
  const { status, body } = await gw.json('DELETE /api/v2/accesstoken?name=pos')
  t.equal(status, 401)
  t.equal(body.returnCode, -2)
  t.equal(gw.services.tokens.list().length, 1)
})

t.test('revocation reaches listeners (so live WebSocket sessions can end)', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('pos')
  const seen: unknown[] = []
  gw.services.tokens.on('revoked', (event) => void seen.push(event))
  await gw.json('DELETE /api/v2/accesstoken', { token })
  t.match(seen, [{ name: 'pos', id: String }])
})
