import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { sampleOrder, startReceiver } from '../../helpers/webhooks.ts'

t.test('GET /api/v2/register lists each URL with state, last success, last error and backlog, never the secret', async (t) => {
  const gw = await testGateway({ webhooks: { allowLoopback: true } })
  const receiver = await startReceiver()
  t.teardown(async () => {
    gw.services.webhooks.close()
    await receiver.close()
  })
  const token = await gw.issueToken()
  const registered = await gw.json('POST /api/v2/register', { token, body: { http_client: receiver.url } })
  await gw.services.changes.record('ORDER_CREATED', sampleOrder(1, gw.clock.now()))
  await gw.services.changes.record('ORDER_MODIFIED', sampleOrder(1, gw.clock.now(), { state: 'located', locationName: 4 }))

  const { status, body } = await gw.json('GET /api/v2/register', { token })
  t.equal(status, 200)
  t.match(body, {
    status: 200,
    returnCode: 19,
    count: 1,
    webhooks: [{ url: receiver.url, version: 'v2', state: 'active', created: String, lastSuccess: null, lastError: null, backlog: 2, dropped: 0 }],
  })
  t.notOk(JSON.stringify(body).includes(registered.body.webhook.secret), 'no secret in the list')
  t.notOk('secret' in body.webhooks[0])
  t.match((await gw.json('GET /api/v2/register')).body, { status: 401, returnCode: -2 })
})
