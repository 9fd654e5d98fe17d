// Scopes (issue 41): a till (scope pos) manages its own webhooks: those it registered are the
// ones it lists and removes; an admin sees and removes every one. Another's URL is "not
// registered" to it (404 -30), so nothing of another client's hooks is told or touched.
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { startReceiver } from '../../helpers/webhooks.ts'

t.test('a pos token lists and removes only the webhooks it registered; an admin manages all', async (t) => {
  const gw = await testGateway({ webhooks: { allowLoopback: true }, v1: { basicAuth: true } })
  const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver(), startReceiver()])
  t.teardown(async () => {
    gw.services.webhooks.close()
    for (const receiver of receivers) await receiver.close()
  })
  const [tillsUrl, othersUrl, adminsUrl, v1Url] = receivers.map((receiver) => receiver.url)
  const admin = await gw.issueToken('office')
  const mint = async (name: string) => (await gw.json(`POST /api/v2/accesstoken/generate?name=${name}&scope=pos`, { token: admin })).body.token.token as string
  const till = await mint('till-1')
  const other = await mint('till-2')
  t.equal((await gw.json('POST /api/v2/register', { token: till, body: { http_client: tillsUrl } })).status, 200)
  t.equal((await gw.json('POST /api/v2/register', { token: other, body: { http_client: othersUrl } })).status, 200)
  t.equal((await gw.json('POST /api/v2/register', { token: admin, body: { http_client: adminsUrl } })).status, 200)
  const basic = `Basic ${Buffer.from(`${till}:`).toString('base64')}`
  t.equal(
    (await gw.json(`GET /api/v1/register?http_client=${encodeURIComponent(v1Url!)}`, { headers: { authorization: basic } })).status,
    200,
    "v1 with the till's Basic credential",
  )

  const urls = async (token: string) => ((await gw.json('GET /api/v2/register', { token })).body.webhooks as { url: string }[]).map((w) => w.url).sort()
  t.same(await urls(till), [tillsUrl, v1Url].sort(), 'the till sees its own, v2 and v1')
  t.same(await urls(other), [othersUrl], 'the other till sees its own')
  t.same(await urls(admin), [tillsUrl, othersUrl, adminsUrl, v1Url].sort(), 'an admin sees every one')

  const removeAs = (token: string, url: string) => gw.json(`DELETE /api/v2/register?http_client=${encodeURIComponent(url)}`, { token })
  t.match((await removeAs(till, othersUrl!)).body, { status: 404, returnCode: -30 }, "another till's hook is not the till's to remove")
  t.match((await removeAs(till, adminsUrl!)).body, { status: 404, returnCode: -30 }, "nor an admin's")
  t.same(await urls(admin), [tillsUrl, othersUrl, adminsUrl, v1Url].sort(), 'nothing removed')
  t.match((await removeAs(till, tillsUrl!)).body, { status: 200, returnCode: 19 }, 'its own it removes')
  t.match((await removeAs(admin, othersUrl!)).body, { status: 200 }, 'an admin removes any')
  t.same(await urls(admin), [adminsUrl, v1Url].sort())

  const wall = (await gw.json('POST /api/v2/accesstoken/generate?name=wall&scope=screen', { token: admin })).body.token.token as string
  t.match((await gw.json('GET /api/v2/register', { token: wall })).body, { status: 403, returnCode: -51 }, 'a screen has no webhooks at all')
})
