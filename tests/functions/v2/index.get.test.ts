import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v2 describes the service with code 20, without a token', async (t) => {
  const gw = await testGateway()
  const { status, body } = await gw.json('GET /api/v2')
  t.equal(status, 200)
  t.match(body, { status: 200, returnCode: 20, name: String, apiVersion: 'v2', deviceId: /^TG-/ })
})
