// The served OpenAPI document says exactly what the order and history routes accept: values
// generated from its schemas (and near misses of them) are accepted by the server exactly when
// the document's schema accepts them, parameter by parameter and body by body.
// The seed is fixed (FUZZ_SEED to change it); fast-check prints it with any counterexample.
import fc from 'fast-check'
import t from 'tap'
import { fuzzSetup, numRuns, seed } from '../helpers/openapi-fuzz.ts'
import { nearTexts, nearValues, type Schema, valuesOf } from '../helpers/schema-arbitrary.ts'

const queryRoutes: [string, string][] = [
  ['/api/v2/orders', '/api/v2/orders'],
  ['/api/v1/orders', '/api/v1/orders'],
  ['/api/v2/statistics', '/api/v2/statistics'],
  ['/api/v1/statistics', '/api/v1/statistics'],
]

t.test('query parameters: the server accepts a value exactly when the document does', async (t) => {
  const { gw, token, op, accepts } = await fuzzSetup()
  for (const [template, path] of queryRoutes) {
    for (const param of op('GET', template).parameters.filter((p) => p.in === 'query')) {
      const documented = accepts(param.schema)
      await fc.assert(
        fc.asyncProperty(nearTexts(param.schema), async (value) => {
          const { status, body } = await gw.json(`GET ${path}?${param.name}=${encodeURIComponent(value)}`, { token })
          if (documented(value) !== (status === 200)) {
            throw new Error(
              `${path} ${param.name}=${JSON.stringify(value)}: document ${documented(value) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(body)}`,
            )
          }
        }),
        { seed, numRuns },
      )
      t.pass(`${path} ${param.name}`)
    }
    // All parameters at once, each as the document allows it.
    const params = op('GET', template).parameters.filter((p) => p.in === 'query')
    const all = fc.record(Object.fromEntries(params.map((p) => [p.name, valuesOf(p.schema)])), { requiredKeys: [] })
    await fc.assert(
      fc.asyncProperty(all, async (query) => {
        const text = Object.entries(query)
          .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
          .join('&')
        const { status, body } = await gw.json(`GET ${path}?${text}`, { token })
        if (status !== 200) throw new Error(`${path}?${text}: ${status} ${JSON.stringify(body)}`)
      }),
      { seed, numRuns },
    )
    t.pass(`${path}: every documented combination`)
  }
})

const pathRoutes: [string, string, string][] = [
  ['GET', '/api/v2/activeorders/{id}', '/api/v2/activeorders/'],
  ['GET', '/api/v1/activeorders/{id}', '/api/v1/activeorders/'],
  ['DELETE', '/api/v1/activeorders/{id}', '/api/v1/activeorders/'],
  ['GET', '/api/v2/orders/{uuid}', '/api/v2/orders/'],
  ['GET', '/api/v1/orders/{uuid}', '/api/v1/orders/'],
]

t.test('path parameters: the server accepts a value exactly when the document does', async (t) => {
  const { gw, token, op, accepts } = await fuzzSetup()
  await gw.call('POST /api/v2/activeorders', { token, body: { name: 12, orderType: 'TO_GO' } })
  for (const [method, template, prefix] of pathRoutes) {
    const param = op(method, template).parameters.find((p) => p.in === 'path')!
    const documented = accepts(param.schema)
    // A path segment is never empty, "." or ".." (URLs resolve those away).
    const values = nearTexts(param.schema).filter((v) => v !== '' && v !== '.' && v !== '..')
    await fc.assert(
      fc.asyncProperty(values, async (value) => {
        const { status, body } = await gw.json(`${method} ${prefix}${encodeURIComponent(value)}`, { token })
        if (documented(value) !== (status !== 400)) {
          throw new Error(`${method} ${prefix}${value}: document ${documented(value) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(body)}`)
        }
      }),
      { seed, numRuns },
    )
    t.pass(`${method} ${template}`)
  }
})

const bodyRoutes: [string, string, string, (status: number) => boolean][] = [
  ['POST', '/api/v2/activeorders', '/api/v2/activeorders', (status) => status === 200],
  ['POST', '/api/v1/activeorders', '/api/v1/activeorders?dummy_tracker_address=true', (status) => status === 200],
  // Orders created through the API have no tracker: 404 -13 is an accepted request.
  ['POST', '/api/v2/activeorders/{id}/page', '/api/v2/activeorders/12/page', (status) => status !== 400],
  ['POST', '/api/v1/activeorders/{name}/page', '/api/v1/activeorders/12/page', (status) => status !== 400],
]

/** A body as the document allows it, then perhaps one property replaced by a near miss or left out. */
function bodies(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties as Record<string, Schema>
  const valid = fc.record(Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, valuesOf(s)])), { requiredKeys: schema.required ?? [] })
  const keys = Object.keys(properties)
  const change = fc.option(fc.tuple(fc.constantFrom(...keys), fc.option(fc.oneof(...keys.map((k) => nearValues(properties[k]!))), { nil: undefined })), {
    nil: undefined,
  })
  // Other keys are ignored, but an unsafe key anywhere inside their values is refused (-31).
  const nested = fc.constantFrom<unknown>(JSON.parse('{"__proto__":1}'), { $gt: 1 }, [{ constructor: 1 }], { a: { prototype: 2 } }, { a: [1, { b: 'ok' }] }, [
    [{ c: null }],
  ])
  const extra = fc.option(fc.tuple(fc.constantFrom('note', '$where', 'constructor', 'extra_1'), fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), nested)), {
    nil: undefined,
  })
  return fc.tuple(valid, change, extra).map(([body, changed, added]) => {
    const out: Record<string, unknown> = { ...body }
    if (changed) {
      if (changed[1] === undefined) delete out[changed[0]]
      else out[changed[0]] = changed[1]
    }
    if (added) out[added[0]] = added[1]
    return out
  })
}

t.test('request bodies: the server accepts a body exactly when the document does', async (t) => {
  const { gw, token, op, accepts } = await fuzzSetup()
  await gw.call('POST /api/v2/activeorders', { token, body: { name: 12, orderType: 'TO_GO' } })
  for (const [method, template, target, served] of bodyRoutes) {
    const schema = op(method, template).requestBody!.content['application/json'].schema
    const documented = accepts(schema)
    await fc.assert(
      fc.asyncProperty(bodies(schema), async (body) => {
        const { status, body: answer } = await gw.json(`${method} ${target}`, { token, body })
        if (documented(body) !== served(status)) {
          throw new Error(
            `${method} ${target} ${JSON.stringify(body)}: document ${documented(body) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(answer)}`,
          )
        }
      }),
      { seed, numRuns },
    )
    t.pass(`${method} ${template}`)
  }
})

t.test('v1 create: any dummy_tracker_address value is accepted (only "true" stands in a tracker)', async (t) => {
  const { gw, token, op, accepts } = await fuzzSetup()
  // Tracker 5 is known (started on the simulated starter): its order exists, so v1 answers 200 whatever the aid says.
  t.equal((await gw.json('POST /api/v2/simulator/start', { token, body: { tracker: 5 } })).status, 200)
  const param = op('POST', '/api/v1/activeorders').parameters.find((p) => p.name === 'dummy_tracker_address')!
  const documented = accepts(param.schema)
  const values = fc.oneof(nearTexts(param.schema), fc.constantFrom('AAA', 'true', 'TRUE', 'false', '', '1'))
  await fc.assert(
    fc.asyncProperty(values, async (value) => {
      const { status, body } = await gw.json(`POST /api/v1/activeorders?dummy_tracker_address=${encodeURIComponent(value)}`, { token, body: { name: 5 } })
      if (documented(value) !== (status === 200)) {
        throw new Error(
          `dummy_tracker_address=${JSON.stringify(value)}: document ${documented(value) ? 'accepts' : 'refuses'}, server ${status} ${JSON.stringify(body)}`,
        )
      }
    }),
    { seed, numRuns },
  )
  t.pass('POST /api/v1/activeorders dummy_tracker_address')
})

t.test('v1 clear and page take a number only, and their refusal says so (not "or a UUID")', async (t) => {
  const { gw, token, op } = await fuzzSetup()
  const uuid = '6f9619ff-8b86-d011-b42d-00c04fc964ff'
  for (const [method, template, target] of [
    ['DELETE', '/api/v1/activeorders/{id}', `/api/v1/activeorders/${uuid}`],
    ['POST', '/api/v1/activeorders/{name}/page', `/api/v1/activeorders/${uuid}/page`],
  ] as const) {
    const { status, body } = await gw.json(`${method} ${target}`, { token, body: method === 'POST' ? {} : undefined })
    t.equal(status, 400, `${method} ${template}`)
    t.equal(body.message, 'Order name must be a positive integer')
    const documented = (op(method, template).responses['400'] as { description: string }).description
    t.match(documented, body.message, 'the document lists the message the server gives')
    t.notMatch(documented, /UUID/, 'and does not promise a UUID')
  }
})
