import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { startReceiver } from '../../helpers/webhooks.ts'

t.test('POST /api/v2/register', async (t) => {
  const gw = await testGateway({ webhooks: { allowLoopback: true } })
  const receiver = await startReceiver()
  t.teardown(async () => {
    gw.services.webhooks.close()
    await receiver.close()
  })
  const token = await gw.issueToken()

  t.test('1005 with the URL and a whsec_ secret of at least 24 bytes, after a HEAD probe', async (t) => {
    const { status, body, headers } = await gw.json('POST /api/v2/register', { token, body: { http_client: receiver.url } })
    t.equal(status, 200)
    t.match(body, { status: 200, returnCode: 1005, webhook: { url: receiver.url, secret: /^whsec_[A-Za-z0-9+/]+=*$/ } })
    t.ok(Buffer.from(body.webhook.secret.slice(6), 'base64').length >= 24)
    t.equal(headers.get('cache-control'), 'no-store')
    t.equal(receiver.requests.filter((r) => r.method === 'HEAD').length, 1)
  })

  t.test('registering again is idempotent and never shows the secret again', async (t) => {
    const { body } = await gw.json('POST /api/v2/register', { token, body: { http_client: receiver.url } })
    t.equal(body.returnCode, 1005)
    t.same(body.webhook, { url: receiver.url })
    t.equal(gw.services.webhooks.list().length, 1)
  })

  t.test('several URLs may be registered', async (t) => {
    const { body } = await gw.json('POST /api/v2/register', { token, body: { http_client: `${receiver.url}/second` } })
    t.equal(body.returnCode, 1005)
    t.equal(gw.services.webhooks.list().length, 2)
  })

  t.test('-28 missing, -29 malformed, -30 unreachable, -31 bad JSON; nothing registered', async (t) => {
    const before = gw.services.webhooks.list().length
    t.match((await gw.json('POST /api/v2/register', { token, body: {} })).body, { status: 400, returnCode: -28 })
    t.match((await gw.json('POST /api/v2/register', { token, body: { http_client: 'not a url' } })).body, { status: 400, returnCode: -29 })
    t.match((await gw.json('POST /api/v2/register', { token, body: { http_client: ['x'] } })).body, { status: 400, returnCode: -29 })
    const closed = await startReceiver()
    await closed.close()
    t.match((await gw.json('POST /api/v2/register', { token, body: { http_client: closed.url } })).body, { status: 404, returnCode: -30 })
    t.match((await gw.json('POST /api/v2/register', { token, rawBody: '{"http_client":' })).body, { status: 400, returnCode: -31 })
    t.equal(gw.services.webhooks.list().length, before)
  })

  t.test('a HEAD answered with a redirect is refused (-29), and the redirect is not followed', async (t) => {
    const target = await startReceiver()
    const redirector = await startReceiver()
    t.teardown(async () => {
      await target.close()
      await redirector.close()
    })
    redirector.respond = () => ({ status: 302, headers: { location: target.url } })
    const { body } = await gw.json('POST /api/v2/register', { token, body: { http_client: redirector.url } })
    t.match(body, { status: 400, returnCode: -29, message: /redirect/ })
    t.equal(target.requests.length, 0)
  })

  t.test('without a token: 401 -2', async (t) => {
    t.match((await gw.json('POST /api/v2/register', { body: { http_client: receiver.url } })).body, { status: 401, returnCode: -2 })
  })
})
