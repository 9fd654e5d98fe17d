// The served OpenAPI document says exactly what the gateway's own routes accept (connection
// check, repeaters, pairing, activation, simulator, hourly statistics, access tokens): values generated from its
// schemas, and near misses of them, are refused with 400 exactly when the document refuses
// them. Same method as openapi-fuzz.test.ts (the order and history routes).
import fc from 'fast-check'
import net from 'node:net'
import { parseConfig } from '../../lib/config.ts'
import { startCheckedGateway } from '../helpers/checked-gateway.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import t from 'tap'
import { fuzzSetup, numRuns, seed } from '../helpers/openapi-fuzz.ts'
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
  const { gw, token, op, accepts } = await fuzzSetup()
  for (const [method, path] of queryRoutes) {
    const params = op(method, path).parameters.filter((p) => p.in === 'query')
    t.ok(params.length > 0, `${method} ${path} documents its parameters`)
    for (const param of params) {
      const documented = accepts(param.schema)
      await fc.assert(
        fc.asyncProperty(nearTexts(param.schema), async (value) => {
          gw.services.button.press() // GET generate needs the button window
          const { status, body } = await gw.json(`${method} ${path}?${param.name}=${encodeURIComponent(value)}`, { token })
          if (documented(value) !== (status !== 400)) {
            throw new Error(
              `${method} ${path} ${param.name}=${JSON.stringify(value)}: document ${documented(value) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(body)}`,
            )
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
      const text = Object.entries(query)
        .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
        .join('&')
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
// Whether the server refused the body as input. The simulator refuses a number its restaurant
// does not have with the range in the message (the document states that range); a refusal
// for the restaurant's state (a tracker that already has an order) is not about the input.
const simulatorInputRefused = (answer: Answer) => /^Invalid simulator input(?:: no (?:tracker|table) \d+ in the simulated restaurant.*)?$/.test(answer.message)
const bodyRoutes: [string, string, (status: number, answer: Answer) => boolean][] = [
  ['POST', '/api/v2/repeaters/beginPairing', (status) => status === 400],
  // No cloud service configured: a well-formed code is refused by the service (-19).
  ['POST', '/api/v2/gateway/activate', (status, answer) => status === 400 && answer.returnCode !== -19],
  ['POST', '/api/v2/simulator/start', (_status, answer) => simulatorInputRefused(answer)],
  ['POST', '/api/v2/simulator/place', (_status, answer) => simulatorInputRefused(answer)],
  ['POST', '/api/v2/simulator/clear', (_status, answer) => simulatorInputRefused(answer)],
]

t.test('request bodies: the server accepts a body exactly when the document does', async (t) => {
  const { gw, token, op, accepts } = await fuzzSetup()
  for (const [method, path, refused] of bodyRoutes) {
    const schema = op(method, path).requestBody!.content['application/json'].schema
    const documented = accepts(schema)
    const properties = schema.properties as Record<string, Schema>
    const keys = Object.keys(properties)
    const valid = fc.record(Object.fromEntries(keys.map((k) => [k, valuesOf(properties[k]!)])), { requiredKeys: schema.required ?? [] })
    const near = fc.record(Object.fromEntries(keys.map((k) => [k, fc.oneof(nearValues(properties[k]!), fc.constant(null))])), { requiredKeys: [] })
    await fc.assert(
      fc.asyncProperty(fc.oneof(valid, near), async (body) => {
        const { status, body: answer } = await gw.json(`${method} ${path}`, { token, body })
        if (documented(body) === refused(status, answer as Answer)) {
          throw new Error(
            `${method} ${path} ${JSON.stringify(body)}: document ${documented(body) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(answer)}`,
          )
        }
      }),
      { seed, numRuns },
    )
    t.pass(`${method} ${path}`)
  }
})

t.test("the floor plan: the server refuses a plan's shape exactly when the document does", async (t) => {
  const { gw, token, op, accepts } = await fuzzSetup()
  const documented = accepts(op('POST', '/api/v2/floor').requestBody!.content['application/json'].schema)
  const int = (min: number, max: number) => fc.oneof(fc.integer({ min: min - 1, max: max + 1 }), fc.constantFrom(1.5, '3', null, true))
  const table = fc.record({ table: int(1, 9999), x: int(0, 29), y: int(0, 29) }, { requiredKeys: [] })
  const plan = fc.record({ columns: int(1, 30), rows: int(1, 30), tables: fc.oneof(fc.array(table, { maxLength: 4 }), fc.constant({})) }, { requiredKeys: [] })
  // Full grids with long table numbers: how many tables fit in the 16 KiB a body may have.
  const crowded = fc.constantFrom(499, 500, 501, 530, 600, 900).map((count) => ({
    columns: 30,
    rows: 30,
    tables: Array.from({ length: count }, (_, i) => ({ table: 9999 - i, x: i % 30, y: Math.floor(i / 30) })),
  }))
  const body = fc
    .tuple(fc.oneof(plan, crowded), fc.option(fc.constantFrom('extra', 'note'), { nil: undefined }))
    .map(([p, extra]) => (extra ? { ...p, [extra]: 1 } : p))
  // The cross-field rules (JSON Schema cannot say them) are the summary's; they refuse with a detail naming them.
  const crossField = /placed twice|two tables in cell|is outside the/
  await fc.assert(
    fc.asyncProperty(body, async (value) => {
      const { status, body: answer } = await gw.json('POST /api/v2/floor', { token, body: value })
      // 413: the body is over 16 KiB (what the document allows must fit).
      const refused = (status === 400 && !crossField.test(answer.message)) || status === 413
      if (documented(value) === refused) {
        throw new Error(`${JSON.stringify(value)}: document ${documented(value) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(answer)}`)
      }
    }),
    { seed, numRuns },
  )
  t.pass('POST /api/v2/floor')
})

t.test('settings: the server refuses a body exactly when the document does', async (t) => {
  const { gw, token, op, accepts } = await fuzzSetup()
  const documented = accepts(op('POST', '/api/v2/gateway/settings').requestBody!.content['application/json'].schema)
  // Zone names are the host's (the description says so): only known zones and non-strings here.
  const settings = fc.record(
    {
      zigbeePreset: fc.oneof(fc.constantFrom('A', 'B', 'C', 'D', 'E', 'a', '', null, 1), fc.string({ maxLength: 2 })),
      targetTimeDefault: fc.oneof(fc.integer({ min: -1, max: 86_402 }), fc.constantFrom(1.5, '300', null, 1e9)),
      timezone: fc.constantFrom('UTC', 'Europe/Paris', '+02:00', '', 5, null, true),
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

t.test('DELETE /api/v2/register: the server takes a request exactly when the document does (where the URL goes)', async (t) => {
  const { gw, token, op, accepts } = await fuzzSetup()
  const operation = op('DELETE', '/api/v2/register')
  const param = operation.parameters.find((p) => p.name === 'http_client')
  const url = 'http://192.0.2.10/hook'
  const queries = fc.constantFrom<string | undefined>(undefined, '', url)
  const bodies = fc.constantFrom<Record<string, unknown> | undefined>(undefined, {}, { http_client: url }, { http_client: null }, { http_client: '' })
  // What the document allows of this request: the parameter (required or not, its schema), the body (required or not, its schema).
  const documented = (query: string | undefined, body: Record<string, unknown> | undefined) => {
    const queryOk = query === undefined ? !param?.required : param !== undefined && accepts(param.schema)(query)
    const schema = operation.requestBody?.content['application/json'].schema
    const bodyOk = body === undefined ? !operation.requestBody?.required : schema === undefined || accepts(schema)(body)
    return queryOk && bodyOk
  }
  await fc.assert(
    fc.asyncProperty(queries, bodies, async (query, body) => {
      const target = query === undefined ? '/api/v2/register' : `/api/v2/register?http_client=${encodeURIComponent(query)}`
      const { status, body: answer } = await gw.json(`DELETE ${target}`, { token, body })
      // Not registered (-30, 404) is an accepted request.
      if (documented(query, body) !== (status !== 400)) {
        throw new Error(
          `DELETE ${target} ${JSON.stringify(body)}: document ${documented(query, body) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(answer)}`,
        )
      }
    }),
    { seed, numRuns: Math.min(numRuns, 60) },
  )
  t.pass('DELETE /api/v2/register')
})

/** The status line's code of a raw upgrade request (the answer is read to its first line). */
function upgradeStatus(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `GET /api/v2/websocket HTTP/1.1\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('')}\r\n`,
      )
    })
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
      const line = /^HTTP\/1\.1 (\d{3})/.exec(text)
      if (line) {
        socket.destroy()
        resolve(Number(line[1]))
      }
    })
    socket.on('error', reject)
    socket.on('close', () => reject(new Error(`closed without a status: ${JSON.stringify(text)}`)))
  })
}

t.test('the WebSocket upgrade answers only the statuses the document lists', async (t) => {
  // The upgrade is the HTTP host's (runtime/host/ws.ts): a real gateway.
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir: t.testdir(), mdns: { enabled: false }, tls: { enabled: false } })
  const gateway = await startCheckedGateway({ config, log: memoryLogger('fatal').log })
  t.teardown(() => gateway.stop())
  const port = gateway.port
  const doc = (await (await fetch(`http://127.0.0.1:${port}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: object }>> }
  const documented = Object.keys(doc.paths['/api/v2/websocket']!.get!.responses).map(Number)
  const key = fc.constantFrom('dGhlIHNhbXBsZSBub25jZQ==', '', 'short', undefined)
  const version = fc.constantFrom('13', '8', '12', 'x', undefined)
  const host = fc.constantFrom(`127.0.0.1:${port}`, 'localhost', 'attacker.example')
  const origin = fc.constantFrom(undefined, `http://127.0.0.1:${port}`, 'http://evil.example')
  const upgrade = fc.constantFrom('websocket', undefined)
  const seen = new Set<number>()
  await fc.assert(
    fc.asyncProperty(key, version, host, origin, upgrade, async (k, v, h, o, u) => {
      const headers: Record<string, string> = { host: h }
      if (u) Object.assign(headers, { upgrade: u, connection: 'Upgrade' })
      if (k !== undefined) headers['sec-websocket-key'] = k
      if (v !== undefined) headers['sec-websocket-version'] = v
      if (o !== undefined) headers.origin = o
      const status = await upgradeStatus(port, headers)
      seen.add(status)
      if (!documented.includes(status)) throw new Error(`${JSON.stringify(headers)}: ${status}, the document lists ${documented.join(', ')}`)
    }),
    { seed, numRuns: Math.min(numRuns, 80) },
  )
  for (const status of [101, 400, 403, 404, 421]) t.ok(seen.has(status), `${status} answered and documented`)
})
