// The served OpenAPI document says exactly what the gateway's own routes accept (connection
// check, repeaters, pairing, activation, simulator, hourly statistics, access tokens): values generated from its
// schemas, and near misses of them, are refused with 400 exactly when the document refuses
// them. Same method as openapi-fuzz.test.ts (the order and history routes).
import fc from 'fast-check'
import t from 'tap'
import { ajv, fuzzSetup, numRuns, seed } from '../helpers/openapi-fuzz.ts'
import { nearTexts, nearValues, type Schema, valuesOf } from '../helpers/schema-arbitrary.ts'

// [method, path]; a 4xx other than 400 (an unknown token name: 404) is an accepted request.
const queryRoutes: [string, string][] = [
  ['GET', '/api/v2/gateway/check'],
  ['GET', '/api/v2/repeaters'],
  ['GET', '/api/v2/statistics/hourly'],
  ['POST', '/api/v2/accesstoken/generate'],
  ['GET', '/api/v2/accesstoken/generate'],
  ['DELETE', '/api/v2/accesstoken'],
]

t.test('query parameters: the server accepts a value exactly when the document does', async (t) => {
  const { gw, token, op } = await fuzzSetup()
  for (const [method, path] of queryRoutes) {
    const params = op(method, path).parameters.filter((p) => p.in === 'query')
    t.ok(params.length > 0, `${method} ${path} documents its parameters`)
    for (const param of params) {
      const documented = ajv.compile(param.schema)
      await fc.assert(
        fc.asyncProperty(nearTexts(param.schema), async (value) => {
          gw.services.button.press() // GET generate needs the button window
          const { status, body } = await gw.json(`${method} ${path}?${param.name}=${encodeURIComponent(value)}`, { token })
          if (documented(value) !== (status !== 400)) {
            throw new Error(`${method} ${path} ${param.name}=${JSON.stringify(value)}: document ${documented(value) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(body)}`)
          }
        }),
        { seed, numRuns },
      )
      t.pass(`${method} ${path} ${param.name}`)
    }
  }
})

t.test('every documented combination of the hourly statistics parameters is served', async (t) => {
  const { gw, token, op } = await fuzzSetup()
  const params = op('GET', '/api/v2/statistics/hourly').parameters.filter((p) => p.in === 'query')
  const all = fc.record(Object.fromEntries(params.map((p) => [p.name, valuesOf(p.schema)])), { requiredKeys: [] })
  await fc.assert(
    fc.asyncProperty(all, async (query) => {
      const text = Object.entries(query).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')
      const { status, body } = await gw.json(`GET /api/v2/statistics/hourly?${text}`, { token })
      if (status !== 200) throw new Error(`?${text}: ${status} ${JSON.stringify(body)}`)
    }),
    { seed, numRuns },
  )
  t.pass('hourly')
})

interface Answer {
  returnCode: number
  message: string
}
// Whether the server refused the body as input. Some routes refuse accepted input later with
// the same code (the simulator: no such tracker), but then with a detail in the message.
const bodyRoutes: [string, string, (status: number, answer: Answer) => boolean][] = [
  ['POST', '/api/v2/repeaters/beginPairing', (status) => status === 400],
  // No cloud service configured: a well-formed code is refused by the service (-19).
  ['POST', '/api/v2/gateway/activate', (status, answer) => status === 400 && answer.returnCode !== -19],
  ['POST', '/api/v2/simulator/start', (_status, answer) => answer.message === 'Invalid simulator input'],
  ['POST', '/api/v2/simulator/place', (_status, answer) => answer.message === 'Invalid simulator input'],
  ['POST', '/api/v2/simulator/clear', (_status, answer) => answer.message === 'Invalid simulator input'],
]

t.test('request bodies: the server accepts a body exactly when the document does', async (t) => {
  const { gw, token, op } = await fuzzSetup()
  for (const [method, path, refused] of bodyRoutes) {
    const schema = op(method, path).requestBody!.content['application/json'].schema
    const documented = ajv.compile(schema)
    const properties = schema.properties as Record<string, Schema>
    const keys = Object.keys(properties)
    const valid = fc.record(Object.fromEntries(keys.map((k) => [k, valuesOf(properties[k]!)])), { requiredKeys: schema.required ?? [] })
    const near = fc.record(Object.fromEntries(keys.map((k) => [k, fc.oneof(nearValues(properties[k]!), fc.constant(null))])), { requiredKeys: [] })
    await fc.assert(
      fc.asyncProperty(fc.oneof(valid, near), async (body) => {
        const { status, body: answer } = await gw.json(`${method} ${path}`, { token, body })
        if (documented(body) === refused(status, answer as Answer)) {
          throw new Error(`${method} ${path} ${JSON.stringify(body)}: document ${documented(body) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(answer)}`)
        }
      }),
      { seed, numRuns },
    )
    t.pass(`${method} ${path}`)
  }
})

t.test("the floor plan: the server refuses a plan's shape exactly when the document does", async (t) => {
  const { gw, token, op } = await fuzzSetup()
  const documented = ajv.compile(op('POST', '/api/v2/floor').requestBody!.content['application/json'].schema)
  const int = (min: number, max: number) => fc.oneof(fc.integer({ min: min - 1, max: max + 1 }), fc.constantFrom(1.5, '3', null, true))
  const table = fc.record({ table: int(1, 9999), x: int(0, 29), y: int(0, 29) }, { requiredKeys: [] })
  const plan = fc.record({ columns: int(1, 30), rows: int(1, 30), tables: fc.oneof(fc.array(table, { maxLength: 4 }), fc.constant({})) }, { requiredKeys: [] })
  const body = fc.tuple(plan, fc.option(fc.constantFrom('extra', 'note'), { nil: undefined })).map(([p, extra]) => (extra ? { ...p, [extra]: 1 } : p))
  // The cross-field rules (JSON Schema cannot say them) are the summary's; they refuse with a detail naming them.
  const crossField = /placed twice|two tables in cell|is outside the/
  await fc.assert(
    fc.asyncProperty(body, async (value) => {
      const { status, body: answer } = await gw.json('POST /api/v2/floor', { token, body: value })
      const refused = status === 400 && !crossField.test(answer.message)
      if (documented(value) === refused) {
        throw new Error(`${JSON.stringify(value)}: document ${documented(value) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(answer)}`)
      }
    }),
    { seed, numRuns },
  )
  t.pass('POST /api/v2/floor')
})

t.test('settings: the server refuses a body exactly when the document does', async (t) => {
  const { gw, token, op } = await fuzzSetup()
  const documented = ajv.compile(op('POST', '/api/v2/gateway/settings').requestBody!.content['application/json'].schema)
  // Zone names are the host's (the description says so): only known zones and non-strings here.
  const settings = fc.record(
    {
      zigbeePreset: fc.oneof(fc.constantFrom('A', 'B', 'C', 'D', 'E', 'a', '', null, 1), fc.string({ maxLength: 2 })),
      targetTimeDefault: fc.oneof(fc.integer({ min: -1, max: 86_402 }), fc.constantFrom(1.5, '300', null, 1e9)),
      timezone: fc.constantFrom('UTC', 'Europe/Paris', '+02:00', 5, null, true),
      colour: fc.constant('red'),
    },
    { requiredKeys: [] },
  )
  await fc.assert(
    fc.asyncProperty(settings, async (value) => {
      const { status, body: answer } = await gw.json('POST /api/v2/gateway/settings', { token, body: value })
      if (documented(value) !== (status === 200)) {
        throw new Error(`${JSON.stringify(value)}: document ${documented(value) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(answer)}`)
      }
    }),
    { seed, numRuns },
  )
  t.pass('POST /api/v2/gateway/settings')
})
