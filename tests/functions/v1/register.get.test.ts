import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { startReceiver } from '../../helpers/webhooks.ts'

t.test('GET /api/v1/register?http_client=', async (t) => {
  const gw = await testGateway({ webhooks: { allowLoopback: true } })
  const receiver = await startReceiver()
  t.teardown(async () => {
    gw.services.webhooks.close()
    await receiver.close()
  })
  const ok = await gw.json(`GET /api/v1/register?http_client=${encodeURIComponent(receiver.url)}`)
  t.equal(ok.status, 200)
  t.same(Object.keys(ok.body).sort(), ['message', 'status'], 'v1: status and message, no returnCode, no secret')
  t.match(gw.services.webhooks.listWithSecrets(), [{ url: receiver.url, version: 'v1', secret: /^whsec_/ }], 'secret kept for the host')
  t.equal((await gw.json(`GET /api/v1/register?http_client=${encodeURIComponent(receiver.url)}`)).status, 200, 'idempotent')

  t.match((await gw.json('GET /api/v1/register')).body, { status: 400, message: String })
  t.match((await gw.json('GET /api/v1/register?http_client=bad')).body, { status: 400 })
  const closed = await startReceiver()
  await closed.close()
  const unreachable = await gw.json(`GET /api/v1/register?http_client=${encodeURIComponent(closed.url)}`)
  t.match(unreachable, { status: 404, body: { status: 404, message: 'The callback server cannot be reached' } })
  t.notOk('returnCode' in unreachable.body)
})
