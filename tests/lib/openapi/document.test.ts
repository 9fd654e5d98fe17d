import { Validator } from '@seriousme/openapi-schema-validator'
import t from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { v2Errors } from '../../../lib/api/envelope.ts'
import { hostRefusals } from '../../../lib/api/host-refusals.ts'
import { outcomeCodes, type ErrorKind } from '../../../lib/kernel/errors.ts'
import { buildOpenApiDocument, operationId, templateOf, type DocumentedRoute } from '../../../lib/openapi/document.ts'
import { scopeAllows, scopes } from '../../../lib/tokens/scopes.ts'
import { contract } from '../../contract/endpoints.ts'

type Doc = { paths: Record<string, Record<string, any>>; [key: string]: unknown }
const build = (routes: DocumentedRoute[]) => buildOpenApiDocument(routes, { version: '1.2.3' }) as Doc

async function validate(doc: unknown) {
  const validator = new Validator()
  const result = await validator.validate(doc as Parameters<Validator['validate']>[0])
  return { ...result, validator }
}

/** Every returnCode an operation documents, success and error. */
function documentedCodes(op: any): { statuses: string[]; returnCodes: number[] } {
  const returnCodes: number[] = []
  for (const response of Object.values<any>(op.responses)) {
    // A status the HTTP host also answers (400, 503) has the route's body or the host's (anyOf).
    const schema = response.content?.['application/json']?.schema
    const parts = schema?.allOf ?? schema?.anyOf?.flatMap((form: any) => form.allOf ?? []) ?? []
    for (const part of parts) returnCodes.push(...(part.properties?.returnCode?.enum ?? []))
  }
  return { statuses: Object.keys(op.responses), returnCodes }
}

function findOperation(doc: Doc, method: string, path: string) {
  for (const item of Object.values(doc.paths)) {
    const op = item[method.toLowerCase()]
    if (op?.['x-route'] === `${method} ${path}`) return op
  }
  return undefined
}

t.test('the document of the current manifest is valid OpenAPI 3.1', async (t) => {
  const doc = build(manifest)
  const result = await validate(doc)
  t.ok(result.valid, JSON.stringify(result.errors))
  t.equal(result.validator.version, '3.1')
  t.doesNotThrow(() => result.validator.resolveRefs(), 'every $ref resolves')
  t.equal((doc.info as any).version, '1.2.3')
})

t.test('the validator does reject a broken document (so the check above can fail)', async (t) => {
  const doc = structuredClone(build(manifest))
  delete (doc.paths['/api/v2']!.get as any).responses['200'].description
  t.notOk((await validate(doc)).valid)
})

t.test('every manifest route is in the document under its method and template', async (t) => {
  const doc = build(manifest)
  t.ok(manifest.length > 0)
  for (const entry of manifest) {
    const op = findOperation(doc, entry.method, entry.path)
    t.ok(op, `${entry.method} ${entry.path} is documented`)
    if (!op) continue
    t.equal(op.operationId, operationId(entry.file))
    t.equal(op.summary, entry.summary)
    const template = Object.keys(doc.paths).find((p) => doc.paths[p]![entry.method.toLowerCase()] === op)!
    t.equal(template.replace(/\{\w+\}/g, '{}'), templateOf(entry.path).replace(/\{\w+\}/g, '{}'), 'same shape of path')
    // Per-route security: the scheme, and as its roles every token scope that may call the route.
    const roles = entry.scope ? scopes.filter((held) => scopeAllows(held, entry.scope!)) : []
    if (entry.auth === 'bearer') t.same(op.security, [{ bearerAuth: roles }], 'bearer routes name the scopes that may call them')
    else if (entry.path.startsWith('/api/v1') && entry.scope) t.same(op.security, [{}, { v1BasicAuth: roles }], 'v1 routes: open, or Basic with these scopes')
    else t.notOk(JSON.stringify(op.security).match(/"(read|screen|pos|admin)"/), 'open routes name no scope')
    if (entry.scope) {
      t.equal(op['x-scope'], entry.scope)
      t.match(op.description, new RegExp(`scope ${entry.scope} or wider`))
      t.ok(documentedCodes(op).statuses.includes('403'), `${entry.method} ${entry.path} documents its 403`)
      if (entry.path.startsWith('/api/v2')) t.ok(documentedCodes(op).returnCodes.includes(-51), `${entry.method} ${entry.path} documents -51`)
    }
    const { returnCodes } = documentedCodes(op)
    if (entry.path.startsWith('/api/v2')) {
      // A text answer (GET /api/v2/metrics) carries no envelope, so no code on success.
      if (!entry.contentType) t.ok(returnCodes.includes(entry.code!) || (entry.outcomes ?? []).length > 0, 'default code documented')
      for (const code of [-5, -35, -36, -99]) t.ok(returnCodes.includes(code), `${entry.method} ${entry.path} documents ${code}`)
      if (entry.method === 'POST') t.ok(returnCodes.includes(-31), 'v2 POST bodies may be invalid JSON (-31)')
    }
    for (const outcome of entry.outcomes ?? []) t.ok(returnCodes.includes(outcomeCodes[outcome]), `${entry.file}: outcome ${outcome}`)
    for (const kind of entry.errors ?? []) {
      const mapping = v2Errors[kind as ErrorKind]
      t.ok(mapping, `${entry.file}: ${kind} is an error kind`)
      if (mapping && entry.path.startsWith('/api/v2')) t.ok(returnCodes.includes(mapping.code), `${entry.file}: error ${kind}`)
    }
  }
})

t.test('every code of the route contract is documented for the routes that are served', async (t) => {
  const doc = build(manifest)
  for (const row of contract) {
    const op = row.auth === 'first-frame' ? doc.paths['/api/v2/websocket']?.get : findOperation(doc, row.method, row.path)
    if (!op) continue // not served yet: the manifest test reports it
    const { statuses, returnCodes } = documentedCodes(op)
    if (row.auth === 'first-frame') {
      t.ok(statuses.includes('101'), 'the WebSocket upgrade is documented')
      for (const code of row.errors) t.match(op.description, String(code), `websocket ${code}`)
      continue
    }
    for (const value of row.outcomes) {
      if (value >= 1000) t.ok(returnCodes.includes(value), `${row.method} ${row.path}: outcome ${value}`)
      else t.ok(statuses.includes(String(value)), `${row.method} ${row.path}: status ${value}`)
    }
    for (const value of row.errors) {
      if (row.path.startsWith('/api/v1')) t.ok(statuses.includes(String(value)), `${row.method} ${row.path}: status ${value}`)
      else t.ok(returnCodes.includes(value), `${row.method} ${row.path}: error ${value}`)
    }
  }
})

t.test('config docs become parameters, bodies, outcomes and errors', async (t) => {
  const handlerless = (route: Omit<DocumentedRoute, 'file'> & { file: string }) => route
  const routes: DocumentedRoute[] = [
    handlerless({
      file: 'v2/widgets.id.page.post.ts',
      method: 'POST',
      path: '/api/v2/widgets/:id/page',
      auth: 'bearer',
      code: 7,
      summary: 'Page a widget',
      query: { loud: { description: 'Louder', schema: { type: 'boolean' } } },
      body: { type: 'object', properties: { tracking: { type: 'boolean' } }, required: ['tracking'], additionalProperties: false },
      outcomes: ['ALREADY_STARTED'],
      errors: ['NO_TRACKER_TO_PAGE', 'ORDER_REF_INVALID'],
    }),
    handlerless({ file: 'v1/widgets.id.get.ts', method: 'GET', path: '/api/v1/widgets/:id', auth: 'none', summary: 'One', errors: ['LIMIT_TOO_LARGE'] }),
    handlerless({ file: 'v1/widgets.name.delete.ts', method: 'DELETE', path: '/api/v1/widgets/:name', auth: 'none', summary: 'Clear' }),
    handlerless({ file: 'v2/tokens.get.ts', method: 'GET', path: '/api/v2/tokens', auth: 'button', code: 2, summary: 'Mint', successStatus: 201 }),
  ]
  const doc = build(routes)
  const result = await validate(doc)
  t.ok(result.valid, JSON.stringify(result.errors))

  const page = doc.paths['/api/v2/widgets/{id}/page']!.post
  t.same(
    page.parameters.map((p: any) => [p.name, p.in, p.required]),
    [
      ['id', 'path', true],
      ['loud', 'query', false],
    ],
  )
  t.equal(page.requestBody.required, true)
  t.same(page.requestBody.content['application/json'].schema.required, ['tracking'])
  const success = page.responses['200'].content['application/json'].schema.allOf[1].properties
  t.same(success.returnCode.enum, [7, 1009])
  t.same(page.responses['404'].content['application/json'].schema.allOf[1].properties.returnCode.enum, [-5, -13])
  t.match(page.responses['404'].description, /-13: Order has no tracker: cannot page/)
  t.same(
    page.responses['400'].content['application/json'].schema.anyOf[0].allOf[1].properties.returnCode.enum.sort(),
    [-1, -31, -49, -7].sort(),
    '-49: a path with dot or empty segments, on every route',
  )

  // /api/v1/widgets/{id} and /{name} are one path in OpenAPI: they share the first template.
  t.ok(doc.paths['/api/v1/widgets/{id}']!.get)
  t.ok(doc.paths['/api/v1/widgets/{id}']!.delete)
  t.notOk(doc.paths['/api/v1/widgets/{name}'])
  t.same(
    doc.paths['/api/v1/widgets/{id}']!.delete.parameters.map((p: any) => p.name),
    ['id'],
  )
  t.ok(doc.paths['/api/v1/widgets/{id}']!.get.responses['412'], 'v1 answers 412 for a limit above 100')
  t.notOk(doc.paths['/api/v1/widgets/{id}']!.get.responses['412'].content['application/json'].schema.allOf[1].properties.returnCode)

  const mint = doc.paths['/api/v2/tokens']!.get
  t.ok(mint.responses['201'], 'success status from config')
  t.same(mint.security, [{}])
  t.match(mint.description, /button/)
})

t.test('routes outside the manifest are documented', async (t) => {
  const doc = build([])
  for (const path of ['/', '/docs', '/api/openapi.json', '/assets/{file}', '/assets/{folder}/{file}', '/api/v2/websocket']) {
    t.ok(doc.paths[path]?.get, path)
  }
})

t.test('the WebSocket route documents its upgrade, its error frames and its refusals', async (t) => {
  const ws = build([]).paths['/api/v2/websocket']!.get
  // 400: the handshake's own refusal (ws); 403 and 421: the LAN guards; 429: an address's share; 503: the cap;
  // 408, 431 (and the other forms of 400 and 503): the HTTP host's own answers, as for every operation.
  t.same(Object.keys(ws.responses).sort(), ['101', '400', '403', '404', '408', '421', '429', '431', '503'])
  t.same(ws.responses['429'].content['application/json'].schema.allOf[1].properties.returnCode, { const: -53 })
  t.same(ws.responses['403'].content['application/json'].schema.allOf[1].properties.returnCode, { const: -39 })
  t.same(ws.responses['421'].content['application/json'].schema.allOf[1].properties.returnCode, { const: -41 })
  const [v2Frames, placeFrame] = ws.responses['101']['x-error-frames'].oneOf
  t.same(v2Frames.allOf[1].properties.returnCode.enum.sort(), [-2, -31, -32, -36, -53])
  t.same(placeFrame.allOf[1].properties.status, { const: 503 }, 'no place left at authentication: the upgrade refusal, as a frame')
  t.match(ws.responses['101'].description, /Frames after authentication are ignored/)
  t.match(ws.parameters, [
    { name: 'Upgrade', in: 'header', required: true },
    { name: 'Connection', in: 'header' },
  ])
})

t.test('every 429 documents Retry-After', async (t) => {
  const doc = build(manifest)
  let seen = 0
  // The WebSocket upgrade's 429 (an address's share of subscribers) sends none: a place frees
  // when a subscriber leaves, at no time the gateway knows.
  t.equal(doc.paths['/api/v2/websocket']!.get.responses['429'].headers, undefined)
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values<any>(item)) {
      const limited = op.responses?.['429']
      if (!limited || op.operationId === 'v2_websocket') continue
      seen++
      t.match(limited.headers, { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } }, op.operationId)
    }
  }
  t.ok(seen > 10, `${seen} operations answer 429`)
  t.ok((await validate(doc)).valid, 'still valid OpenAPI')
})

t.test('the simulator bodies state the running restaurant; without one (Zigbee) the parser schema stays', async (t) => {
  const bodyOf = (doc: Doc, path: string) => doc.paths[path]!.post.requestBody.content['application/json'].schema
  const own = buildOpenApiDocument(manifest, { version: '1', simulatedRestaurant: { trackers: 120, tables: 30 } }) as Doc
  const place = bodyOf(own, '/api/v2/simulator/place')
  t.match(place.properties.tracker.anyOf, [
    { type: 'integer', minimum: 1, maximum: 120 },
    { type: 'string', maxLength: 10 },
  ])
  const digits = new RegExp(place.properties.tracker.anyOf[1].pattern)
  t.same(
    ['1', '0007', '99', '120', '0120'].filter((text) => !digits.test(text)),
    [],
    'digits 1-120 taken',
  )
  t.same(
    ['0', '121', '200', '1000', '-1', '1.0'].filter((text) => digits.test(text)),
    [],
    'others refused',
  )
  t.match(place.properties.table.anyOf, [{ maximum: 30 }, { pattern: /30\)\$$/ }])
  t.match(place.properties.tracker.description, /1 to 120/)
  t.match(bodyOf(own, '/api/v2/simulator/start').properties, { tracker: { anyOf: [{ maximum: 120 }, {}] }, toGo: {} })
  t.match(bodyOf(own, '/api/v2/simulator/clear').required, ['tracker'])
  t.ok((await validate(own)).valid, 'valid OpenAPI')
  const zigbee = build(manifest)
  t.match(bodyOf(zigbee, '/api/v2/simulator/place').properties.tracker.anyOf, [{ maximum: 2 ** 31 - 1 }, {}])
})

t.test('a body’s other keys: any JSON without unsafe keys at any depth (SafeJsonValue, exact in the wire schema)', async (t) => {
  const doc = build(manifest) as Doc & { components: { schemas: Record<string, any>; 'x-wire-schemas': Record<string, any> } }
  const media = doc.paths['/api/v2/activeorders']!.post.requestBody.content['application/json']
  t.same(media['x-wire-schema'].additionalProperties, { $ref: '#/components/x-wire-schemas/SafeJsonValue' })
  const safe = doc.components['x-wire-schemas'].SafeJsonValue
  t.same(safe.items, { $ref: '#/components/x-wire-schemas/SafeJsonValue' })
  t.same(safe.additionalProperties, { $ref: '#/components/x-wire-schemas/SafeJsonValue' })
  // Two documents share nothing: resolving one in place cannot change the next.
  safe.items = safe
  t.same((build(manifest) as any).components['x-wire-schemas'].SafeJsonValue.items, { $ref: '#/components/x-wire-schemas/SafeJsonValue' })
})

t.test("the HTTP host's own answers are documented for every operation", async (t) => {
  const doc = build(manifest)
  for (const name of Object.keys(hostRefusals) as (keyof typeof hostRefusals)[]) {
    const { status, message } = hostRefusals[name]
    const component = (doc.components as any).responses[name]
    t.same(component.content['application/json'].schema.allOf[1].properties, { status: { const: status }, message: { const: message } }, name)
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const response = op.responses[String(status)]
        const forms = response?.$ref ? [response.$ref] : (response?.content?.['application/json']?.schema?.anyOf ?? [])
        const host = forms.some((form: any) => form === `#/components/responses/${name}` || JSON.stringify(form).includes('#/components/schemas/HostRefusal'))
        if (!host) t.fail(`${method.toUpperCase()} ${template}: ${status} without the host's ${name}`)
      }
    }
  }
  const create = doc.paths['/api/v2/activeorders']!.post
  t.same(create.responses['408'], { $ref: '#/components/responses/RequestTimeout' }, 'a status of the host only: the shared response')
  t.match(create.responses['400'].description, /no returnCode, "Malformed HTTP request"/, "the route's 400 names the host's too")
})
