// The webhook target guard (docs/api.md, "Events: webhooks and WebSocket"): every forbidden target is refused at registration (v1 and
// v2) without a single connection reaching a canary listener on the loopback interface.
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { startCanary, startReceiver } from '../../helpers/webhooks.ts'

t.test('forbidden targets are refused with zero connections to the canary', async (t) => {
  const canary = await startCanary()
  const gw = await testGateway({ webhooks: { allowLoopback: false } })
  t.teardown(async () => {
    gw.services.webhooks.close()
    await canary.close()
  })
  const token = await gw.issueToken()
  const p = canary.port
  const refused = [
    `http://127.0.0.1:${p}/`,
    `http://localhost:${p}/`,
    `http://[::1]:${p}/`,
    `http://0.0.0.0:${p}/`,
    `http://2130706433:${p}/`,
    `http://0x7f000001:${p}/`,
    `http://0177.0.0.1:${p}/`,
    `http://127.1:${p}/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://169.254.169.254:${p}/latest/meta-data`,
    `http://[fe80::1]:${p}/`,
    `http://224.0.0.1:${p}/`,
    `http://255.255.255.255:${p}/`,
    `file:///etc/passwd`,
    `gopher://127.0.0.1:${p}/`,
    `http://user:pass@127.0.0.1:${p}/`,
    `http://127.0.0.1:${p}/${'a'.repeat(10_000)}`,
  ]
  for (const url of refused) {
    const v2 = await gw.json('POST /api/v2/register', { token, body: { http_client: url } })
    t.match(v2.body, { status: 400, returnCode: -29 }, `v2 ${url.slice(0, 60)}`)
    const v1 = await gw.json(`GET /api/v1/register?http_client=${encodeURIComponent(url)}`)
    t.equal(v1.status, 400, `v1 ${url.slice(0, 60)}`)
  }
  t.equal(gw.services.webhooks.list().length, 0)
  t.equal(canary.connections, 0, 'no connection reached the canary')
})

t.test('with allowLoopback: the gateway itself and redirects to the canary are still refused', async (t) => {
  const canary = await startCanary()
  const redirector = await startReceiver()
  const gw = await testGateway({ webhooks: { allowLoopback: true } })
  t.teardown(async () => {
    gw.services.webhooks.close()
    await canary.close()
    await redirector.close()
  })
  // The gateway "listens" where the canary is: registering its own address+port is -29.
  gw.services.webhooks.setOwnEndpoint(() => ({ host: '0.0.0.0', port: canary.port }))
  const token = await gw.issueToken()
  for (const url of [`http://127.0.0.1:${canary.port}/`, `http://localhost:${canary.port}/`, `http://127.0.0.2:${canary.port}/`]) {
    t.match((await gw.json('POST /api/v2/register', { token, body: { http_client: url } })).body, { returnCode: -29, message: /own address/ }, url)
  }
  redirector.respond = () => ({ status: 302, headers: { location: `http://127.0.0.1:${canary.port}/` } })
  t.match((await gw.json('POST /api/v2/register', { token, body: { http_client: redirector.url } })).body, { returnCode: -29 })
  t.equal(canary.connections, 0)
  // And an allowed loopback receiver (a POS on the same box) registers.
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  t.match((await gw.json('POST /api/v2/register', { token, body: { http_client: receiver.url } })).body, { returnCode: 1005 })
})
