import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v1 answers 200 without a returnCode', async (t) => {
  const gw = await testGateway()
  const { status, body } = await gw.json('GET /api/v1')
  t.equal(status, 200)
  t.match(body, { status: 200, apiVersion: 'v1' })
  t.notOk('returnCode' in body)
})
