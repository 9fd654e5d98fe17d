// Every route of the contract table, three ways (no token, malformed header, valid token),
// against the stance the table states. Routes the manifest does not serve yet are todos, so
// this becomes strict as they land; a served route with no row fails.
import t, { type Test } from 'tap'
import { manifest } from '../../functions/_manifest.gen.ts'
import { authorize } from '../../runtime/host/auth.ts'
import type { Caller } from '../../runtime/host/function-types.ts'
import { contract, type ContractRoute } from '../contract/endpoints.ts'
import { testGateway } from '../helpers/gateway.ts'

const sample = (path: string) => path.replace(':uuid', '0b7e2f4c-1d2a-4e5f-8a9b-0c1d2e3f4a5b').replace(/:(id|name)/, '12')

async function stance(t: Test, row: ContractRoute) {
  const route = `${row.method} ${sample(row.path)}`
  const gw = await testGateway()
  const token = await gw.issueToken('stance')
  // Distinct addresses so the failures below never reach the rate limit.
  const none = await gw.json(route, { ip: '10.1.0.1' })
  const malformed = await gw.json(route, { headers: { authorization: 'Token not-a-bearer' }, ip: '10.1.0.2' })
  if (row.auth === 'bearer') {
    t.match(none, { status: 401, body: { returnCode: -2 } }, `${route}: no token → 401 -2`)
    t.match(malformed, { status: 400, body: { returnCode: -1 } }, `${route}: malformed → 400 -1`)
  } else {
    for (const [label, answer] of [
      ['no token', none],
      ['malformed header', malformed],
    ] as const) {
      t.not(answer.status, 401, `${route}: ${label} is not refused (${row.auth})`)
      t.notOk([-1, -2, -36].includes(answer.body.returnCode), `${route}: ${label} gets no auth code`)
    }
  }
  // A valid token passes the gate; the gate is called directly so no handler runs with it.
  const entry = manifest.find((e) => e.method === row.method && e.path === row.path)!
  const caller: Caller = { ip: '10.1.0.3' }
  const request = new Request(`http://gateway.test${sample(row.path)}`, { method: row.method, headers: { authorization: `Bearer ${token}` } })
  await t.resolves(authorize(entry, request, gw.services, caller), `${route}: valid token passes`)
  if (row.auth === 'bearer') t.equal(caller.token?.name, 'stance', `${route}: the caller is named`)
}

const served = new Set(manifest.map((e) => `${e.method} ${e.path}`))

for (const row of contract) {
  const name = `${row.method} ${row.path} is ${row.auth}`
  if (row.auth === 'first-frame') {
    t.test(name, { skip: 'the WebSocket hub authenticates the first frame (tests/runtime/ws*)' }, async () => {})
  } else if (!served.has(`${row.method} ${row.path}`)) {
    t.test(name, { todo: 'not in the manifest yet' }, async (t) => t.fail('route not served'))
  } else {
    t.test(name, (t) => stance(t, row))
  }
}

t.test('every manifest route has a row in the contract table', async (t) => {
  for (const entry of manifest) {
    const row = contract.find((r) => r.method === entry.method && r.path === entry.path)
    t.ok(row, `${entry.method} ${entry.path} (${entry.file}) has a stance in tests/contract/endpoints.ts`)
    if (row) t.equal(entry.auth, row.auth, `${entry.method} ${entry.path}: the function declares the table's stance`)
  }
})

// Open v2 routes beyond the three the rulings open (docs/api.md, "Access tokens and security"), each deliberate: adding one here is a reviewed decision.
const openExtensions: Record<string, string> = {
  'GET /api/v2/register/jwks': 'public keys for verifying webhook signatures: nothing secret',
  'POST /api/v2/board/pairing': 'a new screen asks for a sign-in code: bounded, and approving it needs a token',
  'GET /api/v2/board/pairing/:id': 'the new screen collects its token with a 128-bit handle only it knows',
  'GET /api/v2/gateway/tls':
    'the HTTPS port and certificate fingerprints, which every TLS handshake shows anyway; the sign-in screen needs them before a token',
}

t.test('v2 routes are bearer except GET /api/v2, GET .../generate, GET /api/v2/capabilities (and listed extensions)', async (t) => {
  const open = contract.filter((r) => r.path.startsWith('/api/v2') && r.auth !== 'bearer' && r.auth !== 'first-frame')
  t.same(
    open
      .map((r) => `${r.method} ${r.path}`)
      .filter((route) => !(route in openExtensions))
      .sort(),
    ['GET /api/v2', 'GET /api/v2/accesstoken/generate', 'GET /api/v2/capabilities'],
  )
})
