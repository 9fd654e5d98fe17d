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
  const approved = await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: code.toLowerCase().replace('-', ' '), name: 'pass-left' } })
  t.match(approved, { status: 201, body: { returnCode: 23, screen: { name: 'pass-left' } } })
  t.notOk(JSON.stringify(approved.body).match(/[0-9a-f]{48}/), 'no full token in the approval')
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code } })).body, { status: 404, returnCode: -42 }, 'a code is approved once')

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
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code } })).body, { status: 404, returnCode: -42 }, 'expired after 10 minutes')
  t.match((await gw.json(`GET /api/v2/board/pairing/${id}`)).body, { returnCode: -43 })
  t.equal(gw.services.screens.waiting, 0)

  t.match((await gw.json('POST /api/v2/board/pairing', { body: { name: 'no spaces allowed' } })).body, { status: 400, returnCode: -4 })
  t.match((await gw.json('POST /api/v2/board/pairing', { rawBody: '{"name":' })).body, { status: 400, returnCode: -31 })
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: {} })).body, { status: 404, returnCode: -42 })
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: '<script>' } })).body, { status: 404, returnCode: -42 })
  t.match((await gw.json('GET /api/v2/board/pairing/not-hex')).body, { status: 404, returnCode: -43 })
  const fresh = (await gw.json('POST /api/v2/board/pairing', { body: {} })).body.pairing
  t.match((await gw.json('POST /api/v2/board/pairing/approve', { token: manager, body: { code: fresh.code, name: 'bad name!' } })).body, { status: 400, returnCode: -4 })
  t.match((await gw.json(`GET /api/v2/board/pairing/${fresh.id}`)).body.pairing, { state: 'waiting' }, 'a refused approval leaves the code waiting')
  t.equal(gw.services.tokens.list().length, tokensBefore, 'no token minted by any refusal')

  // Four waiting from one address (fresh is one of them), then 429 with Retry-After.
  for (let i = 0; i < 3; i++) t.equal((await gw.json('POST /api/v2/board/pairing', { body: {} })).status, 201)
  const refused = await gw.json('POST /api/v2/board/pairing', { body: {} })
  t.match(refused.body, { status: 429, returnCode: -44 })
  t.equal(refused.headers.get('retry-after'), '600')
  t.equal((await gw.json('POST /api/v2/board/pairing', { body: {}, ip: '10.0.0.9' })).status, 201, 'another address still may')
})
