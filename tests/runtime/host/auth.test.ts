import t from 'tap'
import { errorEnvelope } from '../../../lib/api/envelope.ts'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { authorize, unknownOpenRoutes } from '../../../runtime/host/auth.ts'
import type { Caller, ManifestEntry } from '../../../runtime/host/function-types.ts'
import { testGateway } from '../../helpers/gateway.ts'

const unknownToken = 'ab'.repeat(24)

t.test('bearer: missing 401 -2, malformed 400 -1, unknown 401 -2, valid passes', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('pos')
  const cases: [string, Record<string, string>, number, number | undefined][] = [
    ['no header', {}, 401, -2],
    ['empty header', { authorization: '' }, 401, -2],
    ['Basic scheme', { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` }, 400, -1],
    ['scheme only', { authorization: 'Bearer' }, 400, -1],
    ['two spaces', { authorization: `Bearer  ${token}` }, 400, -1],
    ['two words', { authorization: `Bearer ${token} extra` }, 400, -1],
    ['bad characters', { authorization: 'Bearer tok$n' }, 400, -1],
    ['raw token without scheme', { authorization: token }, 400, -1],
    ['unknown token', { authorization: `Bearer ${unknownToken}` }, 401, -2],
    ['short token', { authorization: 'Bearer abc123' }, 401, -2],
    ['upper-case copy of a valid token', { authorization: `Bearer ${token.toUpperCase()}` }, 401, -2],
    ['valid', { authorization: `Bearer ${token}` }, 200, 1],
    ['valid, lower-case scheme', { authorization: `bearer ${token}` }, 200, 1],
  ]
  for (const [label, headers, status, code] of cases) {
    const response = await gw.json('GET /api/v2/accesstoken', { headers, ip: `10.9.0.${cases.findIndex((c) => c[0] === label)}` })
    t.equal(response.status, status, `${label}: status`)
    t.equal(response.body.returnCode, code, `${label}: returnCode`)
  }
})

t.test('the gate names the caller for the function', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('kitchen')
  const caller: Caller = { ip: '10.0.0.3' }
  const entry = { method: 'GET', path: '/api/v2/orders', auth: 'bearer' } as ManifestEntry
  await authorize(entry, new Request('http://x/api/v2/orders', { headers: { authorization: `Bearer ${token}` } }), gw.services, caller)
  t.same(caller.token, { name: 'kitchen', id: gw.services.tokens.list()[0].id, scope: 'admin' })
})

t.test('open stances are not checked, whatever the header says', async (t) => {
  const gw = await testGateway()
  for (const auth of ['none', 'button'] as const) {
    const caller: Caller = { ip: '10.0.0.3' }
    const entry = { method: 'GET', path: '/api/v2/x', auth } as ManifestEntry
    await authorize(entry, new Request('http://x/', { headers: { authorization: 'garbage' } }), gw.services, caller)
    t.equal(caller.token, undefined, auth)
  }
})

t.test('security.openRoutes opens exactly the named routes', async (t) => {
  const gw = await testGateway({ security: { openRoutes: ['GET /api/v2/accesstoken/all'] } })
  t.equal((await gw.json('GET /api/v2/accesstoken/all')).status, 200)
  t.equal((await gw.json('POST /api/v2/accesstoken/generate')).status, 401, 'other routes stay closed')
  t.same(unknownOpenRoutes([{ method: 'GET', path: '/api/v2/orders' }], ['GET /api/v2/orders', 'GET /api/v2/order']), ['GET /api/v2/order'])
})

t.test('v1 is open by default, even with a bad Authorization header', async (t) => {
  const gw = await testGateway()
  const entry = { method: 'GET', path: '/api/v1/orders', auth: 'none' } as ManifestEntry
  await authorize(entry, new Request('http://x/', { headers: { authorization: 'Basic !!!' } }), gw.services, { ip: '10.0.0.1' })
  t.pass('no error')
})

t.test('v1 Basic authentication when v1.basicAuth is on: user = token, empty password', async (t) => {
  const gw = await testGateway({ v1: { basicAuth: true } })
  const token = await gw.issueToken('legacy-pos')
  const entry = { method: 'GET', path: '/api/v1/orders', auth: 'none' } as ManifestEntry
  const basic = (text: string) => ({ authorization: `Basic ${Buffer.from(text).toString('base64')}` })
  const attempt = async (headers: Record<string, string>) => {
    const caller: Caller = { ip: '10.0.0.1' }
    try {
      await authorize(entry, new Request('http://x/api/v1/orders', { headers }), gw.services, caller)
      return caller.token?.name ?? 'passed without a name'
    } catch (error) {
      return (error as DomainError).kind
    }
  }
  t.equal(await attempt(basic(`${token}:`)), 'legacy-pos')
  t.equal(await attempt({}), 'AUTH_REJECTED')
  t.equal(await attempt(basic(`${token}:secret`)), 'AUTH_REJECTED', 'a password is refused')
  t.equal(await attempt(basic(`${unknownToken}:`)), 'AUTH_REJECTED')
  t.equal(await attempt(basic(token)), 'AUTH_MALFORMED', 'no colon')
  t.equal(await attempt({ authorization: `Bearer ${token}` }), 'AUTH_MALFORMED')
  t.equal(await attempt({ authorization: 'Basic ***' }), 'AUTH_MALFORMED')
  // The liveness probe stays open.
  const index = { method: 'GET', path: '/api/v1', auth: 'none' } as ManifestEntry
  await authorize(index, new Request('http://x/api/v1'), gw.services, { ip: '10.0.0.1' })
  t.equal((await gw.json('GET /api/v1')).status, 200)
  // v1 bodies: no returnCode, a message that names Basic.
  t.same(errorEnvelope('v1', new DomainError('AUTH_MALFORMED')).body, { status: 400, message: 'Authorization header must be "Basic <base64 of token:>"' })
  t.same(errorEnvelope('v1', new DomainError('AUTH_REJECTED')).body, { status: 401, message: 'Access token missing or rejected' })
})

t.test('failed authentication is rate limited per address: 429 -36 with Retry-After', async (t) => {
  const gw = await testGateway({ security: { authFailuresPerMinute: 3 } })
  const token = await gw.issueToken('pos')
  const wrong = { token: unknownToken, ip: '10.0.0.66' }
  for (let i = 0; i < 3; i++) t.equal((await gw.json('GET /api/v2/accesstoken', wrong)).status, 401, `failure ${i + 1} is a 401`)
  const limited = await gw.json('GET /api/v2/accesstoken', wrong)
  t.equal(limited.status, 429)
  t.same(
    limited.body,
    { status: 429, returnCode: -36, message: 'Too many failed authentication attempts; retry in 20 s' },
    'the message says when, as Retry-After does',
  )
  t.equal(limited.headers.get('retry-after'), '20', '60 s / 3 failures a minute')
  const malformed = await gw.json('GET /api/v2/accesstoken', { headers: { authorization: 'Token x' }, ip: '10.0.0.66' })
  t.equal(malformed.status, 429, 'malformed headers are limited too')

  t.equal((await gw.json('GET /api/v2/accesstoken', { token, ip: '10.0.0.66' })).status, 200, 'a valid token from the same address still works')
  t.equal((await gw.json('GET /api/v2/accesstoken', { ip: '10.0.0.66' })).status, 401, 'a missing token is not a guess: 401')
  t.equal((await gw.json('GET /api/v2/accesstoken', { ...wrong, ip: '10.0.0.67' })).status, 401, 'other addresses are not blocked')
  t.equal((await gw.json('GET /api/v2', { ip: '10.0.0.66' })).status, 200, 'open routes are not blocked')

  await gw.clock.advance(19_000)
  t.equal((await gw.json('GET /api/v2/accesstoken', wrong)).headers.get('retry-after'), '1')
  await gw.clock.advance(1_000)
  t.equal((await gw.json('GET /api/v2/accesstoken', wrong)).status, 401, 'one more try after Retry-After')
  t.equal((await gw.json('GET /api/v2/accesstoken', wrong)).status, 429)
})

t.test('WebSocket-style verifyToken failures count against the same address', async (t) => {
  const gw = await testGateway({ security: { authFailuresPerMinute: 2 } })
  await gw.services.tokens.verifyToken('nope', '10.0.0.80')
  await gw.services.tokens.verifyToken(unknownToken, '10.0.0.80')
  t.equal((await gw.json('GET /api/v2/accesstoken', { token: unknownToken, ip: '10.0.0.80' })).status, 429)
})

t.test('no token reaches the logs, valid or not', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('pos')
  await gw.json('GET /api/v2/accesstoken', { token })
  await gw.json('GET /api/v2/accesstoken', { token: unknownToken })
  await gw.json('GET /api/v2/accesstoken', { headers: { authorization: `Token ${token}` } })
  await gw.json('POST /api/v2/accesstoken/generate?name=more', { token })
  await gw.json(`DELETE /api/v2/accesstoken`, { token })
  const text = gw.logs.text()
  t.match(text, /access token issued/, 'the logs did record token events')
  t.match(text, /unknown access token/)
  t.notOk(text.includes(token), 'no valid token')
  t.notOk(text.includes(unknownToken), 'no guessed token')
  t.notOk(text.includes(token.slice(0, 12)), 'not even a long piece of one')
})

t.test('the Bearer header read last is remembered, and every request is still checked (issue 30)', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('pos')
  const sequence: [Record<string, string>, number][] = [
    [{ authorization: `Bearer ${token}` }, 200],
    [{ authorization: `Bearer ${token}` }, 200],
    [{ authorization: '' }, 401],
    [{ authorization: `Bearer ${token}` }, 200],
    [{ authorization: 'Bearer tok$n' }, 400],
    [{ authorization: 'Bearer tok$n' }, 400],
    [{ authorization: `Bearer ${token}` }, 200],
  ]
  for (const [index, [headers, status]] of sequence.entries()) {
    t.equal((await gw.json('GET /api/v2/accesstoken', { headers, ip: `10.8.0.${index}` })).status, status, `request ${index}`)
  }
  await gw.services.tokens.revoke(gw.services.tokens.list()[0].id)
  t.equal(
    (await gw.json('GET /api/v2/accesstoken', { headers: { authorization: `Bearer ${token}` } })).status,
    401,
    'the same header after a revocation: refused',
  )
})

t.test("a valid token below the route's scope: 403 -51 before the handler, not counted as a failed authentication", async (t) => {
  const gw = await testGateway({ security: { authFailuresPerMinute: 3 } })
  const admin = await gw.issueToken('office')
  const wall = (await gw.json('POST /api/v2/accesstoken/generate?name=wall&scope=screen', { token: admin })).body.token.token as string
  await gw.json('POST /api/v2/activeorders', { token: admin, body: { name: 5, orderType: 'TO_GO' } })
  for (let i = 0; i < 5; i++) {
    const denied = await gw.json('DELETE /api/v2/activeorders', { token: wall, ip: '10.0.0.7' })
    t.same(denied.body, {
      status: 403,
      returnCode: -51,
      message: "The access token's scope does not allow this: DELETE /api/v2/activeorders needs pos; this token is screen",
    })
  }
  t.equal((await gw.json('GET /api/v2/activeorders', { token: admin })).body.count, 1, 'the handler never ran: the order is still there')
  t.equal(gw.services.tokens.authFailures.retryAfter('10.0.0.7'), 0, 'five refusals, no failure counted')
  t.equal((await gw.json('DELETE /api/v2/activeorders/5', { token: wall, ip: '10.0.0.7' })).status, 200, 'what its scope allows, it does')
})
