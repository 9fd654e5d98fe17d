// The feed's AsyncAPI 3.0 document: valid by the AsyncAPI 3.0.0 JSON Schema (@asyncapi/specs),
// every $ref resolving inside it, its messages the very frame schemas of the OpenAPI
// document's x-websocket, and served by the gateway as /api/asyncapi.json.
import specs from '@asyncapi/specs'
import Ajv from 'ajv'
import t from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { buildAsyncApiDocument } from '../../../lib/openapi/asyncapi-document.ts'
import { buildOpenApiDocument } from '../../../lib/openapi/document.ts'
import { testGateway } from '../../helpers/gateway.ts'

type Doc = Record<string, any>
const openapi = buildOpenApiDocument(manifest, { version: '1.2.3' }) as Doc
const doc = buildAsyncApiDocument(openapi as Parameters<typeof buildAsyncApiDocument>[0]) as Doc

const ajv = new (Ajv as unknown as new (options: object) => { compile(schema: object): ((value: unknown) => boolean) & { errors?: unknown } })({
  strict: false,
  validateFormats: false,
  allErrors: true,
  // The AsyncAPI schema carries the draft-07 meta-schema itself (its schemas use it): not Ajv's copy too.
  meta: false,
  validateSchema: false,
})
const validate = ajv.compile((specs as unknown as { schemas: Record<string, object> }).schemas['3.0.0']!)

/** Every "$ref" in `node` that does not point at something in `root`. */
function unresolved(root: Doc, node: unknown = root, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) unresolved(root, item, found)
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const target = value
          .slice(2)
          .split('/')
          .reduce<any>((at, part) => at?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], root)
        if (!value.startsWith('#/') || target === undefined) found.push(value)
      } else unresolved(root, value, found)
    }
  }
  return found
}

t.test('valid AsyncAPI 3.0 with every $ref resolving', async (t) => {
  t.ok(validate(doc), JSON.stringify(validate.errors))
  t.same(unresolved(doc), [])
  const broken = structuredClone(doc)
  broken.operations.authenticate.action = 'publish'
  t.notOk(validate(broken), 'the schema does reject a broken document (2.x verbs are not 3.0)')
})

t.test("its messages are the OpenAPI document's frames", async (t) => {
  const ws = openapi.paths['/api/v2/websocket'].get
  for (const { $ref } of [...ws['x-websocket'].clientFrames, ...ws['x-websocket'].serverFrames]) {
    const name = $ref.split('/').pop()
    if (/^V\dError$/.test(name)) continue
    t.same(doc.components.messages[name].payload, { $ref }, `${name}: the same component`)
    t.same(doc.components.schemas[name], openapi.components.schemas[name], `${name}: the same schema`)
  }
  t.same(doc.components.messages.WsErrorFrame.payload, ws.responses['101']['x-error-frames'], 'the error frames as documented on the 101')
  t.same(
    doc.operations.authenticate.messages.map((m: { $ref: string }) => m.$ref),
    ['#/channels/feed/messages/WsTokenFrame'],
    'the gateway receives the token frame',
  )
  t.equal(doc.channels.feed.address, '/api/v2/websocket')
  t.equal(doc.info.version, '1.2.3')
})

t.test('the gateway serves it (an answer the OpenAPI document describes)', async (t) => {
  const gw = await testGateway()
  const served = await gw.json('GET /api/asyncapi.json')
  t.equal(served.status, 200)
  t.equal(served.body.asyncapi, '3.0.0')
  t.same(Object.keys(served.body.components.messages).sort(), Object.keys(doc.components.messages).sort())
})
