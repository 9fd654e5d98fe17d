// The two hosts answer alike: the route contract requests (every manifest route with a valid,
// a missing and a malformed token) and the hostile-input requests go to a gateway behind the
// fast host (runtime/host/http.ts) and to its twin behind the @whatwg-node/server adapter
// (runtime/host/fetch-adapter.ts); status, the headers that matter and the body bytes must match.
import fc from 'fast-check'
import t from 'tap'
import { manifest } from '../../functions/_manifest.gen.ts'
import type { ManifestEntry } from '../../runtime/host/function-types.ts'
import { requestArbitrary, seed } from '../helpers/hostile-requests.ts'
import { type Answer, twoHosts } from '../helpers/two-hosts.ts'

const runsPerRoute = Number(process.env.FUZZ_RUNS ?? 10)

/**
 * Fields that are not the host's to decide, compared by shape only: the webhook signing key
 * (drawn per gateway), a screen's sign-in code and the machine's own measurements in the
 * gateway status.
 */
const measured: Record<string, RegExp> = {
  '/api/v2/register/jwks': /"(x|kid)":"[^"]*"/g,
  // A screen's sign-in code and poll handle are drawn per request.
  '/api/v2/board/pairing': /"(id|code)":"[^"]*"/g,
  '/api/v2/gateway': /"(freeMemory|usedMemory|totalMemory|cpuUtilization|cpuTemp|uptime|gatewayUptime|rss|heapUsed|heapTotal|heapLimit|external)":[0-9.]+/g,
}

function comparable(entry: ManifestEntry, answer: Answer): Answer {
  // Metrics are measured figures, and each host counts its own requests: the families must agree.
  if (entry.contentType && answer.status === 200) {
    const families = answer.body.split('\n').filter((line) => line.startsWith('# TYPE '))
    return { ...answer, body: families.join('\n'), headers: { ...answer.headers, 'content-length': undefined } }
  }
  const fields = measured[entry.path]
  if (!fields || (answer.status !== 200 && answer.status !== 201)) return answer
  return { ...answer, body: answer.body.replace(fields, '"$1":…'), headers: { ...answer.headers, 'content-length': undefined } }
}

function difference(entry: ManifestEntry, fast: Answer, reference: Answer): string | undefined {
  const a = comparable(entry, fast)
  const b = comparable(entry, reference)
  if (a.status !== b.status) return `status ${a.status} ≠ ${b.status}`
  for (const [name, value] of Object.entries(a.headers)) {
    if (b.headers[name] !== value) return `${name}: ${value} ≠ ${b.headers[name]}`
  }
  if (a.body !== b.body) return `body\n  fast:      ${a.body.slice(0, 300)}\n  reference: ${b.body.slice(0, 300)}`
  return undefined
}

const bodies: Record<string, unknown> = {
  'POST /api/v2/activeorders': { name: 12, orderType: 'TO_GO', locationName: 4 },
  'POST /api/v1/activeorders': { name: 13, locationName: 2 },
  'POST /api/v2/activeorders/:id/page': { tracking: false },
  'POST /api/v2/gateway/settings': { targetTimeDefault: 240 },
  'POST /api/v2/repeaters/beginPairing': { timeout: 0 },
  'POST /api/v2/gateway/activate': { deviceCode: '123-4567-890' },
  'POST /api/v2/simulator/start': { tracker: 5 },
  'POST /api/v2/simulator/place': { tracker: 5, table: 3 },
  'POST /api/v2/simulator/clear': { tracker: 5 },
  'POST /api/v2/register': { http_client: 'not-a-url' },
}

t.test('the route contract answers alike through both hosts', async (t) => {
  const hosts = await twoHosts()
  t.teardown(() => hosts.close())
  let token = await hosts.issueToken('contract')
  const auth = (kind: string): Record<string, string> =>
    kind === 'valid' ? { authorization: `Bearer ${token}` } : kind === 'malformed' ? { authorization: 'Bearer zz' } : {}
  await hosts.send('POST', '/api/v2/activeorders', { ...auth('valid'), 'content-type': 'application/json' }, JSON.stringify({ name: 7, orderType: 'TO_GO' }))
  await hosts.send('POST', '/api/v2/activeorders', { ...auth('valid'), 'content-type': 'application/json' }, JSON.stringify({ name: 8, orderType: 'TO_GO' }))
  const cleared = JSON.parse((await hosts.send('DELETE', '/api/v2/activeorders/8', auth('valid'))).fast.body).activeorder.uuid as string
  const differences: string[] = []
  let compared = 0
  for (const entry of manifest) {
    const target = entry.path.replace(':uuid', cleared).replace(/:\w+/, '7')
    for (const kind of ['valid', 'missing', 'malformed']) {
      const body = bodies[`${entry.method} ${entry.path}`]
      const headers = { ...auth(kind), ...(body ? { 'content-type': 'application/json' } : {}) }
      const { fast, reference } = await hosts.send(entry.method, target, headers, body === undefined ? undefined : JSON.stringify(body))
      compared++
      const why = difference(entry, fast, reference)
      if (why) differences.push(`${entry.method} ${target} (${kind} token): ${why}`)
      // DELETE /api/v2/accesstoken revokes the calling token: carry on with a new one.
      if (kind === 'valid' && entry.method === 'DELETE' && entry.path === '/api/v2/accesstoken') token = await hosts.issueToken('contract')
    }
  }
  t.same(differences, [], `${compared} requests answered alike`)
  t.ok(compared >= manifest.length * 3)
})

t.test('hostile input answers alike through both hosts', async (t) => {
  const hosts = await twoHosts()
  t.teardown(() => hosts.close())
  let actor = await hosts.issueToken('fuzz')
  await hosts.send(
    'POST',
    '/api/v2/activeorders',
    { authorization: `Bearer ${actor}`, 'content-type': 'application/json' },
    JSON.stringify({ name: 7, orderType: 'TO_GO', locationName: 3 }),
  )
  t.comment(`FUZZ_SEED=${seed}`)
  for (const entry of manifest) {
    await fc.assert(
      fc.asyncProperty(requestArbitrary(entry), async ({ path, query, body, auth }) => {
        if ((await hosts.send('GET', '/api/v2/accesstoken', { authorization: `Bearer ${actor}` })).fast.status !== 200) actor = await hosts.issueToken('fuzz')
        const headers: Record<string, string> = { 'content-type': 'application/json' }
        if (auth === 'valid') headers.authorization = `Bearer ${actor}`
        else if (auth !== 'none') headers.authorization = auth
        const target = query ? `${path}?${query}` : path
        const { fast, reference } = await hosts.send(entry.method, target, headers, entry.method === 'GET' ? undefined : body)
        const why = difference(entry, fast, reference)
        if (why) throw new Error(`${entry.method} ${target}: ${why}`)
      }),
      { seed, numRuns: runsPerRoute, endOnFailure: true },
    )
    t.pass(`${entry.method} ${entry.path}`)
  }
})
