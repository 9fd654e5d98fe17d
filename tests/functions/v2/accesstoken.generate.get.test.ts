import t from 'tap'
import { storageError } from '../../../lib/store/db.ts'
import { testGateway } from '../../helpers/gateway.ts'

t.test('outside a button window the generate call is refused with 403 -3', async (t) => {
  const gw = await testGateway()
  const { status, body } = await gw.json('GET /api/v2/accesstoken/generate')
  t.equal(status, 403)
  t.match(body, { status: 403, returnCode: -3 })
  t.same(gw.services.tokens.list(), [], 'nothing issued')
  // The window is checked first: a bad name with the window closed is still 403/-3.
  const badName = await gw.json('GET /api/v2/accesstoken/generate?name=bad!')
  t.same([badName.status, badName.body.returnCode], [403, -3])
})

t.test('a press opens the window: 201, code 2, the full token once, no-store', async (t) => {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  gw.services.button.press()
  const response = await gw.call('GET /api/v2/accesstoken/generate?name=pos-1')
  t.equal(response.status, 201)
  t.equal(response.headers.get('cache-control'), 'no-store')
  const body = await response.json()
  t.match(body, {
    status: 201,
    returnCode: 2,
    token: {
      name: 'pos-1',
      token: /^[0-9a-f]{48}$/,
      prefix: /^[0-9a-f]{6}$/,
      creation_date: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/,
      last_used: null,
      ip_address: null,
    },
  })
  t.equal(body.token.prefix, body.token.token.slice(0, 6))
})

t.test('the default name is "default"', async (t) => {
  const gw = await testGateway()
  gw.services.button.press()
  const { body } = await gw.json('GET /api/v2/accesstoken/generate')
  t.equal(body.token.name, 'default')
})

t.test('the first token closes the window', async (t) => {
  const gw = await testGateway()
  gw.services.button.press()
  t.equal((await gw.json('GET /api/v2/accesstoken/generate?name=a')).status, 201)
  const second = await gw.json('GET /api/v2/accesstoken/generate?name=b')
  t.equal(second.status, 403)
  t.equal(second.body.returnCode, -3)
  t.same(
    gw.services.tokens.list().map((r) => r.name),
    ['a'],
  )
})

t.test('two concurrent calls in one window: exactly one token', async (t) => {
  const gw = await testGateway()
  gw.services.button.press()
  const answers = await Promise.all([gw.json('GET /api/v2/accesstoken/generate?name=a'), gw.json('GET /api/v2/accesstoken/generate?name=b')])
  t.same(answers.map((a) => a.status).sort(), [201, 403])
  t.equal(gw.services.tokens.list().length, 1)
})

t.test('the window expires 120 s after the press', async (t) => {
  const gw = await testGateway()
  gw.services.button.press()
  await gw.clock.advance(119_999)
  t.ok(gw.services.button.isOpen(), 'still open just before 120 s')
  await gw.clock.advance(1)
  const { status, body } = await gw.json('GET /api/v2/accesstoken/generate')
  t.equal(status, 403)
  t.equal(body.returnCode, -3)
})

t.test('a bad name is 400 -4 and does not use up the window', async (t) => {
  const gw = await testGateway()
  gw.services.button.press()
  for (const bad of ['', 'has space', 'dot.name', 'x'.repeat(65), 'ünï', '%24where']) {
    const { status, body } = await gw.json(`GET /api/v2/accesstoken/generate?name=${encodeURIComponent(bad)}`)
    t.equal(status, 400, JSON.stringify(bad))
    t.equal(body.returnCode, -4)
  }
  t.equal((await gw.json(`GET /api/v2/accesstoken/generate?name=${'x'.repeat(64)}`)).status, 201, '64 characters are fine')
})

t.test('a failed write gives the window back', async (t) => {
  const gw = await testGateway()
  gw.services.button.press()
  const tokens = await gw.services.store.collection('tokens')
  const insert = tokens.insert
  // What the collection throws on a full disk.
  tokens.insert = async () => {
    throw storageError(Object.assign(new Error('disk full'), { code: 'ENOSPC' }))
  }
  const failed = await gw.json('GET /api/v2/accesstoken/generate')
  t.equal(failed.status, 503)
  t.equal(failed.body.returnCode, -37)
  tokens.insert = insert
  t.equal((await gw.json('GET /api/v2/accesstoken/generate')).status, 201, 'the window is still open')
})

t.test('gw.issueToken gives a working token', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken('kds')
  t.match(token, /^[0-9a-f]{48}$/)
  t.same(await gw.services.tokens.verifyToken(token, '10.0.0.9'), { name: 'kds', id: gw.services.tokens.list()[0].id, scope: 'admin' })
})

t.test('an <img> from a page of another LAN host (only its Referer tells) mints nothing and leaves the window open', async (t) => {
  const gw = await testGateway()
  gw.services.button.press()
  const refused = await gw.json('GET /api/v2/accesstoken/generate?name=evil', {
    headers: { host: '192.168.1.20:8000', referer: 'http://192.168.1.66/deals.html' },
  })
  t.match(refused, { status: 403, body: { returnCode: -39 } })
  t.same(gw.services.tokens.list(), [], 'nothing issued')
  t.ok(gw.services.button.isOpen(), 'the window is still there for the real device')
})
