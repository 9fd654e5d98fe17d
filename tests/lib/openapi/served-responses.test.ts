// Every answer of a realistic session validates against the response schema the served document
// gives for its route and status: the document and the server cannot drift apart. The session
// starts, locates, pages and clears orders, reads history and statistics, and calls every GET
// route without path parameters.
import Ajv2020 from 'ajv/dist/2020.js'
import t, { type Test } from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

type Validate = ((value: unknown) => boolean) & { errors?: unknown }
const ajv = new (Ajv2020 as unknown as new (options: object) => { compile(schema: object): Validate })({
  strict: false,
  validateFormats: false,
  allErrors: true,
})

const gw = await testGateway()
const token = await gw.issueToken()
if (!(await gw.services.radio.info()).up) await gw.services.radio.start()
const doc = (await gw.json('GET /api/openapi.json')).body as { paths: Record<string, Record<string, any>>; components: object }

/** The documented operation of a concrete "METHOD /path?query". */
function operationOf(method: string, path: string): { template: string; op: any } | undefined {
  const bare = path.split('?')[0]!
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`)
    if (pattern.test(bare) && item[method.toLowerCase()]) return { template, op: item[method.toLowerCase()] }
  }
  return undefined
}

const seen: string[] = []
async function call(t: Test, route: string, options: { body?: unknown } = {}) {
  const [method, path] = route.split(' ') as [string, string]
  const raw = await gw.call(route, { token, ...options })
  // JSON but for a text answer (GET /api/v2/metrics), whose media type must be the documented one.
  const mediaType = (raw.headers.get('content-type') ?? '').split(';')[0]!
  const text = await raw.text()
  const answer = { status: raw.status, body: mediaType === 'application/json' ? JSON.parse(text) : text }
  const found = operationOf(method, path)
  t.ok(found, `${route} is documented`)
  const response = found?.op.responses[String(answer.status)]
  t.ok(response, `${route}: status ${answer.status} is documented`)
  t.ok(response?.content?.[mediaType], `${route}: ${mediaType} is its documented media type`)
  const schema = response?.content?.['application/json']?.schema
  if (schema) {
    const validate = ajv.compile({ allOf: [schema], components: doc.components })
    t.ok(
      validate(answer.body),
      `${route} ${answer.status} matches the document: ${JSON.stringify(validate.errors)} ${JSON.stringify(answer.body).slice(0, 400)}`,
    )
  }
  seen.push(`${method} ${found?.template}`)
  return answer
}

t.test('an order from start to clear, and the reads around it', async (t) => {
  await call(t, 'POST /api/v2/activeorders', { body: { name: 4711, orderType: 'TO_GO' } })
  await call(t, 'POST /api/v2/activeorders', { body: { name: 4711, orderType: 'TO_GO', locationName: 12 } })
  await call(t, 'POST /api/v2/activeorders', { body: { name: 'x', orderType: 'TO_GO' } })
  await call(t, 'POST /api/v2/activeorders', { body: { name: 12, orderType: 'ON_PREMISE', locationName: 3 } })
  await call(t, 'GET /api/v2/activeorders')
  await call(t, 'GET /api/v2/activeorders/4711')
  await call(t, 'POST /api/v2/activeorders/4711/page')
  await call(t, 'GET /api/v2/activeorders/4711/page')
  await call(t, 'DELETE /api/v2/activeorders/4711/page')
  await call(t, 'DELETE /api/v2/activeorders/4711')
  await call(t, 'GET /api/v2/activeorders/4711')
  await call(t, 'GET /api/v2/orders?limit=10')
  await call(t, 'GET /api/v2/orders?limit=500')
  const history = await call(t, 'GET /api/v2/orders?limit=1&order_type=TO_GO')
  const uuid = history.body.items?.[0]?.uuid
  if (uuid) await call(t, `GET /api/v2/orders/${uuid}`)
  await call(t, 'GET /api/v2/statistics')
  await call(t, 'DELETE /api/v2/activeorders')
  await call(t, 'POST /api/v1/activeorders?dummy_tracker_address=true', { body: { name: 88, orderType: 'TO_GO' } })
  await call(t, 'GET /api/v1/activeorders')
  await call(t, 'GET /api/v1/activeorders/88')
  await call(t, 'POST /api/v1/activeorders/88/page')
  await call(t, 'DELETE /api/v1/activeorders/88')
  await call(t, 'GET /api/v1/orders?limit=5')
  await call(t, 'GET /api/v1/statistics')
  await call(t, 'POST /api/v2/register', { body: { http_client: 'http://192.168.1.50:3000/hook' } })
  await call(t, 'POST /api/v2/register', { body: { http_client: 'http://192.168.1.50:3000/hook' } })
})

t.test('every GET route without path parameters', async (t) => {
  for (const [template, item] of Object.entries(doc.paths)) {
    const op = item.get
    if (!op?.['x-route'] || template.includes('{') || template.includes('websocket')) continue
    await call(t, `GET ${template}`)
  }
  t.ok(seen.length > 30, `${seen.length} answers checked`)
})
