import { testGateway } from '../tests/helpers/gateway.ts'
const gw = await testGateway()
const token = await gw.issueToken()
await gw.json('POST /api/v2/activeorders', { token, body: { name: 5, orderType: 'TO_GO' } })
await gw.clock.advance(70000)
await gw.json('DELETE /api/v2/activeorders/5', { token })
console.log(JSON.stringify((await gw.json('GET /api/v2/orders?limit=5', { token })).body))
