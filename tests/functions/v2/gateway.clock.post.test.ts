// POST /api/v2/gateway/clock (functions/v2/gateway.clock.post.ts)
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('POST /api/v2/gateway/clock answers', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const { status, body } = await gw.json('POST /api/v2/gateway/clock', { token })
  t.equal(status, 200)
  t.match(body, { status: 200, returnCode: 12 })
})

t.test('POST /api/v2/gateway/clock needs a token', async (t) => {
  const gw = await testGateway()
  t.match((await gw.json('POST /api/v2/gateway/clock')).body, { status: 401, returnCode: -2 })
})
