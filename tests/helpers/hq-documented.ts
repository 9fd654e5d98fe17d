// HQ's OpenAPI document as a DescribedApi (./documented-responses.ts): the HQ tests register
// each HQ they start with checkAnswersFrom(base, hqDescribedApi) (./checked-origins.ts), so every
// answer they fetch from it is held to the document HQ serves at /api/openapi.json. Apart
// from documented-responses.ts so that the gateway's tests do not load HQ's functions.
import { manifest } from '../../functions/_hq_manifest.gen.ts'
import { buildHqOpenApiDocument } from '../../lib/openapi/hq-document.ts'
import { DescribedApi, type OpenApiDoc } from './documented-responses.ts'

export const hqDescribedApi = new DescribedApi(
  'hq',
  () => buildHqOpenApiDocument(manifest, 'test') as OpenApiDoc,
  // A path or method without an operation answers HQ's error envelope (ROUTE_NOT_FOUND).
  (_path, status) => ({
    key: `undocumented hq ${status}`,
    schema: { allOf: [{ $ref: '#/components/schemas/HqError' }, { properties: { status: { const: status } } }] },
  }),
)
