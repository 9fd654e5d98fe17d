// Hostile input against every route in the manifest: malformed JSON, wrong types, operator
// and prototype keys, deep nesting, huge bodies, odd paths and query values. Never a 5xx,
// always a well-formed envelope, and a refused request changes nothing.
// The seed is fixed (FUZZ_SEED to change it); fast-check prints it with any counterexample.
import fc from 'fast-check'
import t from 'tap'
import { manifest } from '../../functions/_manifest.gen.ts'
import { requestArbitrary, seed } from '../helpers/hostile-requests.ts'
import { testGateway, type TestGateway } from '../helpers/gateway.ts'

const runsPerRoute = Number(process.env.FUZZ_RUNS ?? 25)

/** Read-only routes whose answers make up the gateway's observable state. */
const stateRoutes = [
  '/api/v2/activeorders',
  '/api/v2/accesstoken/all',
  '/api/v2/gateway/settings',
  '/api/v2/register',
  '/api/v2/orders?limit=100',
  '/api/v2/repeaters',
  '/api/v2/trackers',
  '/api/v2/gateway/activate',
]
/** Fields that legitimately change when the snapshot itself is taken. */
const volatile = new Set(['last_used', 'ip_address', 'elapsedTime'])

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !volatile.has(k))
        .map(([k, v]) => [k, strip(v)]),
    )
  }
  return value
}

async function snapshot(gw: TestGateway, token: string): Promise<string> {
  const served = new Set(manifest.filter((e) => e.method === 'GET').map((e) => e.path))
  const parts: unknown[] = []
  for (const route of stateRoutes) {
    if (!served.has(route.split('?')[0])) continue
    parts.push(strip((await gw.json(`GET ${route}`, { token })).body))
  }
  return JSON.stringify(parts)
}

t.test('every route survives hostile input', async (t) => {
  const gw = await testGateway()
  // The observer token only reads state; the acting token may be revoked by a fuzzed
  // DELETE /api/v2/accesstoken, so it is re-issued whenever that happened.
  const token = await gw.issueToken('observer')
  let actor = await gw.issueToken('fuzz')
  const ensureActor = async () => {
    if ((await gw.call('GET /api/v2/accesstoken', { token: actor, ip: '10.0.0.2' })).status !== 200) actor = await gw.issueToken('fuzz')
  }
  // A little state to protect: an order (when the route exists).
  await gw.call('POST /api/v2/activeorders', { token, body: { name: 7, orderType: 'TO_GO', locationName: 3 } })
  t.comment(`FUZZ_SEED=${seed}`)

  for (const entry of manifest) {
    const v2 = entry.path.startsWith('/api/v2')
    await fc.assert(
      fc.asyncProperty(requestArbitrary(entry), async ({ path, query, body, auth }) => {
        await ensureActor()
        const before = await snapshot(gw, token)
        const headers: Record<string, string> = { 'content-type': 'application/json' }
        if (auth === 'valid') headers.authorization = `Bearer ${actor}`
        else if (auth !== 'none') headers.authorization = auth
        const target = query ? `${path}?${query}` : path
        const response = await gw.call(`${entry.method} ${target}`, {
          rawBody: entry.method === 'GET' ? undefined : body,
          headers,
          ip: auth === 'valid' ? '10.0.0.2' : '10.0.0.66',
        })
        const text = await response.text()
        if (response.status >= 500) throw new Error(`${entry.method} ${target} → ${response.status} ${text}`)
        // A route answering another format (the Prometheus text of /metrics) answers it only on success.
        if (entry.contentType && response.status === 200) {
          if (response.headers.get('content-type') !== entry.contentType) throw new Error(`${target}: content-type ${response.headers.get('content-type')}`)
          return
        }
        const parsed = JSON.parse(text) as { status: number; returnCode?: number }
        if (parsed.status !== response.status) throw new Error(`status field ${parsed.status} ≠ HTTP ${response.status}`)
        if (v2 && typeof parsed.returnCode !== 'number') throw new Error(`v2 answer without returnCode: ${text}`)
        if (!v2 && 'returnCode' in parsed) throw new Error(`v1 answer with returnCode: ${text}`)
        if (response.status >= 400) {
          if (v2 && parsed.returnCode! >= 0) throw new Error(`error with non-negative returnCode: ${text}`)
          const after = await snapshot(gw, token)
          if (after !== before) throw new Error(`${entry.method} ${target} refused (${response.status}) but changed state`)
        }
      }),
      { seed, numRuns: runsPerRoute, endOnFailure: true },
    )
    t.pass(`${entry.method} ${entry.path}`)
  }
  // A polluted Object.prototype shows through every plain object ('in' follows the chain).
  t.notOk('admin' in {}, 'no prototype pollution')
  t.strictSame(Object.keys(Object.prototype), [], 'Object.prototype gained no enumerable key')
})
