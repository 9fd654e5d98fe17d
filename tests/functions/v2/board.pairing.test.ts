// Extension: a new screen signs in with a code a signed-in screen approves.
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('code, approval by a token holder, the token collected once by the waiting screen', async (t) => {
  const gw = await testGateway()
  const manager = await gw.issueToken('manager-phone')
  const asked = await gw.json('POST /api/v2/board/pairing', { body: { name: 'board-chrome-linux-a1b2c3' } })
  t.equal(asked.status, 201)
  t.equal(asked.body.returnCode, 23)
  const { id, code, name, expiresIn } = asked.body.pairing
  t.match(code, /^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/, 'eight unambiguous characters in two halves')
  t.match(id, /^[0-9a-f]{32}$/)
  t.equal(name, 'board-chrome-linux-a1b2c3')
  t.equal(expiresIn, 600)
  t.match((await gw.json(`GET /api/v2/board/pairing/${id}`)).body, { status: 200, returnCode: 23, pairing: { state: 'waiting', expiresIn: 600 } })

  // Only a signed-in screen approves; the approver never sees the token.
  t.equal((await gw.json('POST /api/v2/board/pairing/approve', { body: { code } })).status, 401)
  const approved = await gw.json('POST /api/v2/board/pairing/approve', {
    token: manager,
    body: { code: code.toLowerCase().replace('-', ' '), name: 'pass-left' },
  })
  t.match(approved, { status: 201, body: { returnCode: 23, screen: { name: 'pass-left' } } })
  t.notOk(JSON.stringify(approved.body).match(/[0-9a-f]{48}/), 'no full token in the approval')
  t.match(
    (await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code } })).body,
    { status: 404, returnCode: -42 },
    'a code is approved once',
  )

  const collected = await gw.json(`GET /api/v2/board/pairing/${id}`)
  t.match(collected.body, { status: 200, pairing: { state: 'approved' }, token: { name: 'pass-left' } })
  const token = collected.body.token.token as string
  t.match(token, /^[0-9a-f]{48}$/)
  t.equal(collected.headers.get('cache-control'), 'no-store')
  t.match((await gw.json('GET /api/v2/accesstoken', { token })).body, { token: { name: 'pass-left' } }, 'the new screen has its own token')
  t.match((await gw.json(`GET /api/v2/board/pairing/${id}`)).body, { status: 404, returnCode: -43 }, 'collected once, then gone')
})

t.test('codes expire; bad input is refused and changes nothing; bounded per address', async (t) => {
  const gw = await testGateway()
  const manager = await gw.issueToken()
  const tokensBefore = gw.services.tokens.list().length
  const { code, id } = (await gw.json('POST /api/v2/board/pairing', { body: {} })).body.pairing
  t.equal(gw.services.screens.waiting, 1)
  await gw.clock.advance(10 * 60_000)
  t.match(
    (await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code } })).body,
    { status: 404, returnCode: -42 },
    'expired after 10 minutes',
  )
  t.match((await gw.json(`GET /api/v2/board/pairing/${id}`)).body, { returnCode: -43 })
  t.equal(gw.services.screens.waiting, 0)

  t.match((await gw.json('POST /api/v2/board/pairing', { body: { name: 'no spaces allowed' } })).body, { status: 400, returnCode: -4 })
  t.match((await gw.json('POST /api/v2/board/pairing', { rawBody: '{"name":' })).body, { status: 400, returnCode: -31 })
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: {} })).body, { status: 404, returnCode: -42 })
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: '<script>' } })).body, { status: 404, returnCode: -42 })
  t.match((await gw.json('GET /api/v2/board/pairing/not-hex')).body, { status: 404, returnCode: -43 })
  const fresh = (await gw.json('POST /api/v2/board/pairing', { body: {} })).body.pairing
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: fresh.code, name: 'bad name!' } })).body, {
    status: 400,
    returnCode: -4,
  })
  t.match((await gw.json(`GET /api/v2/board/pairing/${fresh.id}`)).body.pairing, { state: 'waiting' }, 'a refused approval leaves the code waiting')
  t.equal(gw.services.tokens.list().length, tokensBefore, 'no token minted by any refusal')

  // Four waiting from one address (fresh is one of them), then 429 with Retry-After.
  for (let i = 0; i < 3; i++) t.equal((await gw.json('POST /api/v2/board/pairing', { body: {} })).status, 201)
  const refused = await gw.json('POST /api/v2/board/pairing', { body: {} })
  t.match(refused.body, { status: 429, returnCode: -44 })
  t.equal(refused.headers.get('retry-after'), '600')
  t.equal((await gw.json('POST /api/v2/board/pairing', { body: {}, ip: '10.0.0.9' })).status, 201, 'another address still may')
})

t.test('an approval mints nothing until the screen collects it; one never collected lapses with its code', async (t) => {
  const gw = await testGateway()
  const manager = await gw.issueToken('manager-phone')
  const before = gw.services.tokens.list().length
  const { code, id } = (await gw.json('POST /api/v2/board/pairing', { body: { name: 'wall' } })).body.pairing
  const approved = await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code } })
  t.match(approved.body, { status: 201, screen: { name: 'wall', scope: 'screen', prefix: /^[0-9a-f]{6}$/ } })
  t.equal(gw.services.tokens.list().length, before, 'no token exists before the screen collects it')
  await gw.clock.advance(10 * 60_000)
  t.match((await gw.json(`GET /api/v2/board/pairing/${id}`)).body, { status: 404, returnCode: -43 }, 'expired uncollected')
  t.equal(gw.services.tokens.list().length, before, 'and it never became a token: nothing piles up against the cap')

  const next = (await gw.json('POST /api/v2/board/pairing', { body: { name: 'wall' } })).body.pairing
  const prefix = (await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: next.code } })).body.screen.prefix
  const collected = await gw.json(`GET /api/v2/board/pairing/${next.id}`)
  t.match(collected.body, { token: { name: 'wall', scope: 'screen', prefix } }, 'collected: the token the approver was told of')
  t.equal(gw.services.tokens.list().length, before + 1)
})

t.test('a screen signed in by a code gets screen unless the approver chooses; never more than the approver holds', async (t) => {
  const gw = await testGateway()
  const manager = await gw.issueToken('manager-phone')
  let screens = 0
  const ask = async () => (await gw.json('POST /api/v2/board/pairing', { body: {}, ip: `10.0.1.${++screens}` })).body.pairing
  const first = await ask()
  await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: first.code, name: 'wall' } })
  const wall = (await gw.json(`GET /api/v2/board/pairing/${first.id}`)).body.token.token as string
  t.match((await gw.json('GET /api/v2/accesstoken', { token: wall })).body, { token: { name: 'wall', scope: 'screen' } })
  t.match(
    (await gw.json('POST /api/v2/gateway/settings', { token: wall, body: { targetTimeDefault: 60 } })).body,
    { status: 403, returnCode: -51 },
    'a wall screen cannot change settings',
  )
  t.match((await gw.json('DELETE /api/v2/activeorders', { token: wall })).body, { status: 403, returnCode: -51 }, 'nor clear every order')

  const second = await ask()
  t.match(
    (await gw.json('POST /api/v2/board/pairing/approve', { token: wall, body: { code: second.code } })).body,
    { status: 403, returnCode: -51 },
    'a screen approves no other screen',
  )
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: second.code, scope: 'owner' } })).body, {
    status: 400,
    returnCode: -54,
  })
  t.match((await gw.json(`GET /api/v2/board/pairing/${second.id}`)).body.pairing, { state: 'waiting' }, 'refusals leave the code waiting')
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: second.code, scope: 'pos', name: 'till' } })).body.screen, {
    name: 'till',
    scope: 'pos',
  })
  t.match((await gw.json(`GET /api/v2/board/pairing/${second.id}`)).body.token, { name: 'till', scope: 'pos' })

  // Signing out: the screen gives up its own token, whatever its scope.
  t.match((await gw.json('DELETE /api/v2/accesstoken', { token: wall })).body, { status: 200, returnCode: 1001 })
  t.match((await gw.json('GET /api/v2/accesstoken', { token: wall })).body, { status: 401, returnCode: -2 }, 'revoked at once')
})

t.test('a screen asking for a new code replaces its old request; the refusal says when to retry', async (t) => {
  const gw = await testGateway()
  let previous = (await gw.json('POST /api/v2/board/pairing', { body: {} })).body.pairing
  for (let press = 0; press < 6; press++) {
    const asked = await gw.json('POST /api/v2/board/pairing', { body: { replaces: previous.id } })
    t.equal(asked.status, 201, `press ${press + 2} gets a code`)
    t.match((await gw.json(`GET /api/v2/board/pairing/${previous.id}`)).body, { status: 404, returnCode: -43 }, 'the old request is gone')
    previous = asked.body.pairing
  }
  t.equal(gw.services.screens.waiting, 1, 'pressing "Show a code" seven times holds one place')
  t.match(
    (await gw.json('POST /api/v2/board/pairing', { body: { replaces: 'not-a-handle' } })).body,
    { status: 404, returnCode: -43 },
    'a malformed handle is refused',
  )

  for (let i = 0; i < 3; i++) await gw.json('POST /api/v2/board/pairing', { body: {} })
  const refused = await gw.json('POST /api/v2/board/pairing', { body: {} })
  t.match(refused.body, { status: 429, returnCode: -44, message: 'Too many screens are waiting for a code; retry in 10 min' })
  await gw.clock.advance(61_000)
  t.match((await gw.json('POST /api/v2/board/pairing', { body: {} })).body, { status: 429, message: /retry in 8 min 59 s$/ })
})
