import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test("GET /api/v2/accesstoken answers the caller's own record with code 1", async (t) => {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  await gw.services.settings.update({ timezone: '+01:00' })
  const pos = await gw.issueToken('pos')
  await gw.issueToken('kds')
  await gw.clock.advance(5_000)
  const { status, body } = await gw.json('GET /api/v2/accesstoken', { token: pos, ip: '192.168.1.50' })
  t.equal(status, 200)
  t.same(body, {
    status: 200,
    returnCode: 1,
    token: {
      name: 'pos',
      prefix: pos.slice(0, 6),
      scope: 'admin',
      creation_date: '2026-11-22T13:00:00',
      last_used: '2026-11-22T13:00:05',
      ip_address: '192.168.1.50',
    },
  })
  t.notOk(JSON.stringify(body).includes(pos), 'the token is never shown again')
})

t.test('GET /api/v2/accesstoken without a token is 401 -2', async (t) => {
  const gw = await testGateway()
  const { status, body } = await gw.json('GET /api/v2/accesstoken')
  t.equal(status, 401)
  t.equal(body.returnCode, -2)
})

t.test('opened by security.openRoutes, there is no own record: 401 -2', async (t) => {
  const gw = await testGateway({ security: { openRoutes: ['GET /api/v2/accesstoken'] } })
  const { status, body } = await gw.json('GET /api/v2/accesstoken')
  t.equal(status, 401)
  t.equal(body.returnCode, -2)
})
