// HQ's OpenAPI document, built from HQ's manifest: valid OpenAPI 3.1, each route's answers as
// HQ writes them (the JSON envelope, and the CSV of a route that takes format=csv; errors as
// HqError), the host's own answers on every operation, and the routes outside the manifest.
// The HQ tests hold every answer they receive to it (tests/helpers/hq-documented.ts).
import { Validator } from '@seriousme/openapi-schema-validator'
import t from 'tap'
import { manifest } from '../../../functions/_hq_manifest.gen.ts'
import { buildHqOpenApiDocument } from '../../../lib/openapi/hq-document.ts'

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, any> }
const doc = buildHqOpenApiDocument(manifest, '1.2.3') as unknown as Doc

t.test('valid OpenAPI 3.1 whose every $ref resolves', async (t) => {
  const validator = new Validator()
  const result = await validator.validate(structuredClone(doc) as Parameters<Validator['validate']>[0])
  t.ok(result.valid, JSON.stringify(result.errors))
  t.doesNotThrow(() => validator.resolveRefs())
})

t.test('a route that takes format=csv documents its CSV answer beside the envelope', async (t) => {
  const withFormat = manifest.filter((entry) => entry.query?.format)
  t.ok(withFormat.length >= 3, 'history, alerts and statistics take format')
  for (const entry of manifest) {
    const op = doc.paths[entry.path.replace(/:(\w+)/g, '{$1}')]![entry.method.toLowerCase()]
    // A route's success answer: 200, or 201 for one that creates (a release, a rollout).
    const success = Object.keys(op.responses).find((status) => status.startsWith('2'))!
    const types = Object.keys(op.responses[success].content).sort()
    if (entry.contentType) t.same(types, [entry.contentType.split(';')[0]], `${entry.path}: its text only`)
    else t.same(types, entry.query?.format ? ['application/json', 'text/csv'] : ['application/json'], entry.path)
    for (const [status, response] of Object.entries<any>(op.responses)) {
      if (Number(status) < 400 || response.$ref) continue
      const schema = response.content['application/json'].schema
      const form = schema.anyOf?.[0] ?? schema
      t.equal(form.allOf[0].$ref, '#/components/schemas/HqError', `${entry.path} ${status}: HQ's error envelope`)
    }
    t.same(op.responses['431'], { $ref: '#/components/responses/HeadersTooLarge' }, `${entry.path}: the host's own answers too`)
  }
})

t.test('the document itself and the live feed are documented', async (t) => {
  t.ok(doc.paths['/api/openapi.json']?.get.responses['200'].content['application/json'])
  t.ok(doc.paths['/api/hq/live']?.get.responses['101'])
})
