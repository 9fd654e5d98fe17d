// The OpenAPI fuzz with a `screen` and a `read` token (issue 41): every operation the served
// document lists, with path, query and body values generated from its own schemas and near
// misses of them, sent with the narrower token (v1 with Basic auth on, so v1 routes check it
// too). No answer is a 5xx; an operation whose security lists the token's scope never
// answers 403/-51, and one that does not list it answers nothing else (the scope is checked
// before any input is read, so a refused token learns nothing of the route's input rules).
// The seed is fixed (FUZZ_SEED to change it); fast-check prints it with any counterexample.
import fc from 'fast-check'
import t from 'tap'
import { type Scope, scopeAllows } from '../../lib/tokens/scopes.ts'
import { fuzzSetup, mint, numRuns, onTheWire, type Operation, seed } from '../helpers/openapi-fuzz.ts'
import { nearTexts, nearValues, type Schema, valuesOf } from '../helpers/schema-arbitrary.ts'

const runsPerOperation = Math.max(5, Math.floor(numRuns / 6))

interface Call {
  path: string
  query: string
  body: Record<string, unknown> | undefined
}

function callArbitrary(template: string, op: Operation): fc.Arbitrary<Call> {
  const pathParams = op.parameters.filter((p) => p.in === 'path')
  const queryParams = op.parameters.filter((p) => p.in === 'query')
  // A path segment is never empty, "." or ".." (URLs resolve those away).
  const segment = (schema: Schema) => nearTexts(schema).filter((v) => v !== '' && v !== '.' && v !== '..')
  const path = fc
    .tuple(...pathParams.map((p) => segment(p.schema)))
    .map((values) => pathParams.reduce((text, p, i) => text.replace(`{${p.name}}`, encodeURIComponent(values[i] as string)), template))
  const query = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, nearTexts(p.schema)])), { requiredKeys: [] }).map((values) =>
    Object.entries(values)
      .map(([k, v]) => `${k}=${encodeURIComponent(v as string)}`)
      .join('&'),
  )
  const schema = op.requestBody?.content['application/json'].schema
  const properties = (schema?.properties ?? {}) as Record<string, Schema>
  const keys = Object.keys(properties)
  const body: fc.Arbitrary<Record<string, unknown> | undefined> = !schema
    ? fc.constant(undefined)
    : fc.oneof(
        fc.record(Object.fromEntries(keys.map((k) => [k, fc.oneof(valuesOf(properties[k]!), nearValues(properties[k]!))])), { requiredKeys: [] }),
        fc.constant({}),
      )
  return fc.record({ path, query, body })
}

for (const scope of ['screen', 'read'] as Scope[]) {
  t.test(`a ${scope} token: no 5xx on any operation, and 403/-51 exactly where the document's security leaves ${scope} out`, async (t) => {
    const { gw, token: first } = await fuzzSetup(scope, { v1: { basicAuth: true } })
    const admin = await gw.issueToken('fuzz-admin')
    let token = first
    const doc = (await gw.json('GET /api/openapi.json')).body as { paths: Record<string, Record<string, Operation>> }
    await gw.json('POST /api/v2/activeorders', { token: admin, body: { name: 12, orderType: 'TO_GO' } })
    t.comment(`FUZZ_SEED=${seed}`)
    let operations = 0
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op['x-route']) continue // the board, the docs and the WebSocket: no function behind them
        operations++
        const roles = op.security?.flatMap((requirement) => Object.values(requirement).flat()) ?? []
        const scoped = roles.length > 0
        const allowed = !scoped || roles.includes(scope)
        const v1 = template.startsWith('/api/v1')
        await fc.assert(
          fc.asyncProperty(callArbitrary(template, onTheWire(op)), async ({ path, query, body }) => {
            // DELETE /api/v2/accesstoken signs the token out: carry on with a new one.
            if (!gw.services.tokens.list().some((record) => record.name === `fuzz-${scope}`)) token = await mint(gw, admin, scope)
            const authorization = v1 ? `Basic ${Buffer.from(`${token}:`).toString('base64')}` : `Bearer ${token}`
            const target = `${method.toUpperCase()} ${path}${query ? `?${query}` : ''}`
            const answer = await gw.json(target, { headers: { authorization }, body: method === 'get' ? undefined : body })
            const returnCode = (answer.body as { returnCode?: number }).returnCode
            const said = `${target} ${JSON.stringify(body)}: ${answer.status} ${JSON.stringify(answer.body)}`
            if (answer.status >= 500) throw new Error(`a 5xx: ${said}`)
            const refusedForScope = answer.status === 403 && (v1 ? /scope/.test(String((answer.body as { message?: string }).message)) : returnCode === -51)
            // A query parameter may ask for more than the route does (x-scope: revoking tokens by name).
            const params = new URLSearchParams(query)
            const askedMore = op.parameters.some(
              (p) => p.in === 'query' && p['x-scope'] !== undefined && !scopeAllows(scope, p['x-scope']) && params.has(p.name),
            )
            if (askedMore && answer.status < 400) throw new Error(`a ${scope} token did what needs more: ${said}`)
            if (allowed && refusedForScope && !askedMore) throw new Error(`${op['x-route']} lists ${scope} but refused it: ${said}`)
            if (!allowed && !refusedForScope) throw new Error(`${op['x-route']} leaves ${scope} out but answered: ${said}`)
          }),
          { seed, numRuns: runsPerOperation, endOnFailure: true },
        )
        t.pass(`${op['x-route']} (${allowed ? 'allowed' : 'refused'})`)
      }
    }
    t.ok(operations >= 50, `${operations} operations fuzzed`)
  })
}
