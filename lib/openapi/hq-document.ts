// Headquarters' OpenAPI 3.1 document, generated from its function manifest like the
// gateway's: every route with its parameters, its success envelope (v2's form: status,
// returnCode, payload), its CSV form where it takes format=csv, and the errors it can
// answer; then the routes outside the manifest (this document, the live feed). A route
// added to HQ's manifest is documented by its config alone.
import type { FunctionConfig } from '../api/function-config.ts'
import { hqErrors, type HqErrorKind } from '../hq/errors.ts'
import { addHostRefusals, hostRefusalSchema, hostResponseComponents } from './host-responses.ts'

export type HqDocumentedRoute = FunctionConfig & { file: string; response?: Record<string, unknown> }

const templateOf = (path: string) => path.replace(/:(\w+)/g, '{$1}')
const operationId = (file: string) => file.replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '_')

const pathParamDocs: Record<string, string> = {
  site: 'The site id (its fleet.siteId: the topic level it publishes under)',
  release: 'A release id (POST /api/hq/releases)',
  rollout: 'A rollout id (POST /api/hq/rollouts)',
}

function errorResponses(route: FunctionConfig): Record<string, unknown> {
  const kinds: HqErrorKind[] = [...((route.errors ?? []) as HqErrorKind[]), 'ROUTE_NOT_FOUND', 'STORAGE_UNAVAILABLE', 'INTERNAL']
  if (route.auth === 'bearer') kinds.unshift('AUTH_MALFORMED', 'AUTH_REJECTED')
  const byStatus: Record<string, { codes: number[]; messages: string[] }> = {}
  for (const kind of kinds) {
    const error = hqErrors[kind]
    const entry = (byStatus[String(error.status)] ??= { codes: [], messages: [] })
    if (!entry.codes.includes(error.code)) entry.codes.push(error.code)
    entry.messages.push(`${error.code}: ${error.message}`)
  }
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, entry]) => [
      status,
      {
        description: entry.messages.join('; '),
        content: {
          'application/json': {
            schema: {
              allOf: [
                { $ref: '#/components/schemas/HqError' },
                { type: 'object', properties: { status: { const: Number(status) }, returnCode: { enum: entry.codes } } },
              ],
            },
          },
        },
      },
    ]),
  )
}

export function buildHqOpenApiDocument(routes: HqDocumentedRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const parameters = [
      ...[...route.path.matchAll(/:(\w+)/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        description: pathParamDocs[m[1]!] ?? m[1],
        schema: { type: 'string' },
      })),
      ...Object.entries(route.query ?? {}).map(([name, doc]) => ({
        name,
        in: 'query',
        required: doc.required ?? false,
        description: doc.description,
        schema: doc.schema,
      })),
    ]
    ;(paths[templateOf(route.path)] ??= {})[route.method.toLowerCase()] = {
      operationId: operationId(route.file),
      summary: route.summary,
      tags: ['hq'],
      security: route.auth === 'bearer' ? [{ hqToken: [] }] : [{}],
      ...(route.scope ? { 'x-scope': route.scope } : {}),
      parameters,
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
      responses: {
        [String(route.successStatus ?? 200)]: {
          description: route.summary,
          content: route.contentType
            ? { [route.contentType.split(';')[0]!]: { schema: { type: 'string' } } }
            : {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['status', 'returnCode'],
                    properties: {
                      status: { const: route.successStatus ?? 200 },
                      returnCode: { const: route.code },
                      ...((route.response?.properties as object) ?? {}),
                    },
                  },
                },
                // format=csv answers the same rows as a spreadsheet file (lib/hq/csv.ts).
                ...(route.query?.format ? { 'text/csv': { schema: { type: 'string' } } } : {}),
              },
        },
        ...errorResponses(route),
      },
    }
  }
  paths['/api/hq/live'] = {
    get: {
      operationId: 'hq_live',
      summary:
        'WebSocket (upgrade): {"type":"changed","sites":[...]} whenever a site\'s rows change, from any HQ instance; subprotocols "hq" and "token.<HQ token>"',
      tags: ['hq'],
      security: [{}],
      responses: { '101': { description: 'Switching protocols' }, '401': { description: 'No valid HQ token among the subprotocols' } },
    },
  }
  paths['/api/openapi.json'] = {
    get: {
      operationId: 'hq_openapi',
      summary: "This OpenAPI 3.1 document, generated from HQ's function manifest",
      tags: ['hq'],
      security: [{}],
      responses: {
        '200': { description: 'The document', content: { 'application/json': { schema: { type: 'object' } } } },
        '304': { description: 'Not modified' },
      },
    },
  }
  addHostRefusals(paths)
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tracker Gateway HQ API',
      version,
      description:
        "Headquarters of a chain: every site's state, open orders and figures, read from PostgreSQL. Every body carries `status` equal to the HTTP status and `returnCode` (the path default, or a negative error).",
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'hq', description: 'Headquarters; HQ tokens from `gateway hq token create <name>`' }],
    paths,
    components: {
      schemas: {
        HqError: {
          type: 'object',
          description: 'Every HQ error: status equal to the HTTP status, a negative returnCode, and the message',
          required: ['status', 'returnCode', 'message'],
          properties: { status: { type: 'integer' }, returnCode: { type: 'integer', maximum: -1 }, message: { type: 'string' } },
        },
        HostRefusal: hostRefusalSchema,
      },
      responses: hostResponseComponents(),
      securitySchemes: { hqToken: { type: 'http', scheme: 'bearer', description: 'hq_ followed by 48 hex characters' } },
    },
  }
}
