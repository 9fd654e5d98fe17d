import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { sampleOrder, startReceiver } from '../../helpers/webhooks.ts'

t.test('DELETE /api/v2/register', async (t) => {
  const gw = await testGateway({ webhooks: { allowLoopback: true } })
  const receiver = await startReceiver()
  t.teardown(async () => {
    gw.services.webhooks.close()
    await receiver.close()
  })
  const token = await gw.issueToken()
  await gw.json('POST /api/v2/register', { token, body: { http_client: receiver.url } })
  await gw.json('POST /api/v2/register', { token, body: { http_client: `${receiver.url}/b` } })
  await gw.services.changes.record('ORDER_CREATED', sampleOrder(1, gw.clock.now()))

  t.test('by query: removes the URL and its backlog (code 19)', async (t) => {
    const { status, body } = await gw.json(`DELETE /api/v2/register?http_client=${encodeURIComponent(receiver.url)}`, { token })
    t.equal(status, 200)
    t.match(body, { status: 200, returnCode: 19 })
    t.same(
      gw.services.webhooks.list().map((w) => w.url),
      [`${receiver.url}/b`],
    )
    t.equal(gw.services.webhooks.outbox.backlog(receiver.url), 0)
  })

  t.test('a URL in a body is not read: -28, nothing removed', async (t) => {
    const { body } = await gw.json('DELETE /api/v2/register', { token, body: { http_client: `${receiver.url}/b` } })
    t.match(body, { status: 400, returnCode: -28 })
    t.same(
      gw.services.webhooks.list().map((w) => w.url),
      [`${receiver.url}/b`],
    )
    const removed = await gw.json(`DELETE /api/v2/register?http_client=${encodeURIComponent(`${receiver.url}/b`)}`, { token })
    t.equal(removed.body.returnCode, 19)
    t.equal(gw.services.webhooks.list().length, 0)
  })

  t.test('-30 when not registered, -28 missing, -29 malformed', async (t) => {
    t.match((await gw.json(`DELETE /api/v2/register?http_client=${encodeURIComponent(receiver.url)}`, { token })).body, { status: 404, returnCode: -30 })
    t.match((await gw.json('DELETE /api/v2/register', { token })).body, { status: 400, returnCode: -28 })
    t.match((await gw.json('DELETE /api/v2/register?http_client=', { token })).body, { status: 400, returnCode: -28 })
    t.match((await gw.json('DELETE /api/v2/register?http_client=nope', { token })).body, { status: 400, returnCode: -29 })
  })
})
