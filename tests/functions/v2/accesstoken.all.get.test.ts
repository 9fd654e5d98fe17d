import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v2/accesstoken/all lists every record with code 3, prefixes only', async (t) => {
  const gw = await testGateway()
  const a = await gw.issueToken('a')
  await gw.clock.advance(1000)
  const b = await gw.issueToken('b')
  const { status, body } = await gw.json('GET /api/v2/accesstoken/all', { token: b, ip: '10.0.0.5' })
  t.equal(status, 200)
  t.match(body, {
    status: 200,
    returnCode: 3,
    count: 2,
    tokens: [
      { name: 'a', prefix: a.slice(0, 6), last_used: null, ip_address: null },
      { name: 'b', prefix: b.slice(0, 6), last_used: String, ip_address: '10.0.0.5' },
    ],
  })
  const text = JSON.stringify(body)
  t.notOk(text.includes(a) || text.includes(b), 'no token in the list')
  t.notOk('token' in body.tokens[0], 'records have no token field')
})

t.test('GET /api/v2/accesstoken/all needs a token', async (t) => {
  const gw = await testGateway()
  t.equal((await gw.json('GET /api/v2/accesstoken/all')).status, 401)
})
