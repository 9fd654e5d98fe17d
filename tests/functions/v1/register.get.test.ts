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

t.test("without credentials, only a URL on the caller's own address; with v1 Basic authentication, any", async (t) => {
  const gw = await testGateway({ webhooks: { allowLoopback: true } })
  const receiver = await startReceiver()
  t.teardown(async () => {
    gw.services.webhooks.close()
    await receiver.close()
  })
  const path = `/api/v1/register?http_client=${encodeURIComponent(receiver.url)}`
  // The receiver is on 127.0.0.1; the request comes from another LAN host.
  const other = await gw.call(`GET ${path}`, { ip: '192.168.1.30' })
  t.equal(other.status, 400)
  t.match(await other.json(), { status: 400, message: /caller's own IP address/ })
  t.equal(gw.services.webhooks.list().length, 0, 'nothing registered')
  t.equal(receiver.requests.length, 0, 'and nothing was sent to the URL (not even the HEAD probe)')
  t.equal((await gw.call(`GET ${path}`, { ip: '127.0.0.1' })).status, 200, 'from its own address')

  const basic = await testGateway({ webhooks: { allowLoopback: true }, v1: { basicAuth: true } })
  t.teardown(() => basic.services.webhooks.close())
  const token = await basic.issueToken()
  const authorization = `Basic ${Buffer.from(`${token}:`).toString('base64')}`
  const authenticated = await basic.call(`GET ${path}`, { ip: '192.168.1.30', headers: { authorization } })
  t.equal(authenticated.status, 200, 'an authenticated v1 client registers another host')
  t.equal(basic.services.webhooks.list().length, 1)
})
