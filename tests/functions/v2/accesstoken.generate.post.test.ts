import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('POST generate with a valid token mints another: 201, code 2, no-store, no button needed', async (t) => {
  const gw = await testGateway()
  const first = await gw.issueToken('admin')
  t.notOk(gw.services.button.isOpen())
  const response = await gw.call('POST /api/v2/accesstoken/generate?name=kds-2', { token: first })
  t.equal(response.status, 201)
  t.equal(response.headers.get('cache-control'), 'no-store')
  const body = await response.json()
  t.match(body, { status: 201, returnCode: 2, token: { name: 'kds-2', token: /^[0-9a-f]{48}$/, last_used: null } })
  t.not(body.token.token, first)
  t.equal((await gw.json('GET /api/v2/accesstoken', { token: body.token.token })).body.token.name, 'kds-2', 'the new token works')
})

t.test('POST generate defaults the name and refuses bad names with -4', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('admin')
  t.equal((await gw.json('POST /api/v2/accesstoken/generate', { token })).body.token.name, 'default')
  const bad = await gw.json('POST /api/v2/accesstoken/generate?name=a.b', { token })
  t.equal(bad.status, 400)
  t.equal(bad.body.returnCode, -4)
  t.equal(gw.services.tokens.list().length, 2)
})

t.test('POST generate with a malformed JSON body is 400 -31 and creates nothing', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('admin')
  for (const rawBody of ['{', 'not json', '[1]']) {
    const { status, body } = await gw.json('POST /api/v2/accesstoken/generate?name=more', { token, rawBody })
    t.same([status, body.returnCode], [400, -31], rawBody)
  }
  t.equal(gw.services.tokens.list().length, 1, 'no token created')
  t.equal((await gw.json('POST /api/v2/accesstoken/generate?name=more', { token, rawBody: '' })).status, 201, 'an empty body is no body')
})

t.test('POST generate without a token is 401 -2, with a malformed header 400 -1', async (t) => {
  const gw = await testGateway()
  const missing = await gw.json('POST /api/v2/accesstoken/generate')
  t.equal(missing.status, 401)
  t.equal(missing.body.returnCode, -2)
  const malformed = await gw.json('POST /api/v2/accesstoken/generate', { headers: { authorization: 'Token abc' } })
  t.equal(malformed.status, 400)
  t.equal(malformed.body.returnCode, -1)
  t.equal(gw.services.tokens.list().length, 0)
})

t.test('generate at the cap on tokens (100) is 409 -50 on both routes and mints nothing; revoking makes room', async (t) => {
  const gw = await testGateway()
  const first = await gw.issueToken('admin')
  for (let i = 1; i < 100; i++) await gw.services.tokens.issue(`kds${i}`)
  const refused = await gw.json('POST /api/v2/accesstoken/generate?name=one-more', { token: first })
  t.match(refused, { status: 409, body: { status: 409, returnCode: -50, message: /Too many access tokens: revoke one first: at most 100/ } })
  gw.services.button.press()
  t.match(await gw.json('GET /api/v2/accesstoken/generate?name=one-more'), { status: 409, body: { returnCode: -50 } })
  t.ok(gw.services.button.isOpen(), 'the button window is not used up')
  t.equal(gw.services.tokens.list().length, 100)
  await gw.json('DELETE /api/v2/accesstoken?name=kds1', { token: first })
  t.equal((await gw.json('GET /api/v2/accesstoken/generate?name=one-more')).status, 201)
})
