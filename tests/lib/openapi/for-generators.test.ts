import t from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { buildOpenApiDocument } from '../../../lib/openapi/document.ts'
import { numericRange, typedParameter } from '../../../lib/openapi/for-generators.ts'

const doc = buildOpenApiDocument(manifest, { version: '1.2.3' }) as any
const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name)

t.test('a digit pattern is the integer range it accepts, found by probing it', async (t) => {
  t.same(numericRange('^0*(?:[1-9][0-9]{0,1}|100)$'), { type: 'integer', minimum: 1, maximum: 100 })
  t.same(numericRange('^[0-9]{1,10}$'), { type: 'integer', minimum: 0, maximum: 9999999999 })
  t.same(numericRange('^[0-9]+$'), { type: 'integer', minimum: 0 }, 'no bound past 10^15')
  t.same(numericRange('^(?:0*[1-9][0-9]{0,8}(?:\\.[0-9]{1,6})?|0+\\.[0-9]*[1-9][0-9]*)$'), { type: 'number', exclusiveMinimum: 0 })
  t.equal(numericRange('^[A-Za-z0-9_-]{1,64}$'), undefined, 'names are no numbers')
  t.equal(numericRange('^(?:[1-9]|5[0-9])$'), undefined, 'a pattern with holes is no range')
})

t.test('parameters are typed for generators and keep their exact wire schema', async (t) => {
  const limit = param('/api/v2/orders', 'get', 'limit')
  t.same(limit.schema, { type: 'integer', minimum: 1, maximum: 100, default: 25 })
  t.equal(limit['x-wire-schema'].type, 'string')
  t.ok(new RegExp(limit['x-wire-schema'].pattern).test('007'), 'the wire schema still takes what the server takes')
  t.same(param('/api/v2/repeaters', 'get', 'refresh').schema, { type: 'boolean', default: false })
  t.same(typedParameter({ type: 'string', enum: ['day', 'week'], default: 'day' }), undefined, 'other enums stay')
  t.same(typedParameter({ type: 'string', pattern: '^x+$', default: 5 }), { type: 'string', pattern: '^x+$', default: '5' }, 'a default takes the schema type')
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const op of Object.values<any>(item)) {
      for (const p of op.parameters ?? []) {
        if (p.schema.default !== undefined && p.schema.type)
          t.equal(typeof p.schema.default, p.schema.type === 'integer' ? 'number' : p.schema.type, `${path} ${p.name} default`)
      }
    }
  }
})

t.test('no recursive schema and no body that refuses every other key', async (t) => {
  const text = JSON.stringify({ ...doc, components: { ...doc.components, 'x-wire-schemas': undefined } }).replace(/"x-wire-schema":\{.*?\}(?=[,}])/g, '')
  t.same(doc.components.schemas.SafeJsonValue, { description: doc.components.schemas.SafeJsonValue.description })
  t.notMatch(JSON.stringify(doc.paths['/api/v2/activeorders'].post.requestBody.content['application/json'].schema), /additionalProperties|propertyNames/)
  t.match(JSON.stringify(doc.paths['/api/v2/activeorders'].post.requestBody.content['application/json']['x-wire-schema']), /x-wire-schemas\/SafeJsonValue/)
  t.notMatch(JSON.stringify(doc.components['x-wire-schemas'].SafeJsonValue), /#\/components\/schemas\/SafeJsonValue/)
  t.ok(text.length > 0)
})

t.test("each error is described with its own route's message", async (t) => {
  const create = doc.paths['/api/v2/activeorders'].post.responses['400'].description
  t.match(create, /-31: Invalid JSON payload/)
  t.notMatch(create, /tracking must be true or false/)
})

t.test('fields the server always sends are required; the WebSocket frames are schemas', async (t) => {
  const ok = doc.paths['/api/v2/activeorders'].post.responses['200'].content['application/json'].schema.allOf[1]
  t.same(ok.required.sort(), ['activeorder', 'returnCode', 'status'])
  const ws = doc.paths['/api/v2/websocket'].get['x-websocket']
  t.same(ws.clientFrames, [{ $ref: '#/components/schemas/WsTokenFrame' }])
  for (const frame of ws.serverFrames) t.ok(doc.components.schemas[frame.$ref.split('/').pop()], frame.$ref)
})
