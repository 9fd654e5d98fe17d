// The OpenAPI 3.1 document, generated from the function manifest: every route with its
// parameters, request body, success envelope and every returnCode it can answer (its config's
// outcomes and errors, the spec's route table, and the codes every route may give).
import { errorEnvelope, v2Errors } from '../api/envelope.ts'
import { pathParams } from '../api/fields.ts'
import { jsonSchemaOf } from '../api/input-schema.ts'
import { DomainError, errorKinds, outcomeCodes, type ErrorKind } from '../kernel/errors.ts'
import { type FunctionConfig, type JsonSchema, takesToken } from '../api/function-config.ts'
import { defaultScope, scopeAllows, scopes, type Scope } from '../tokens/scopes.ts'
import { routeCodes as specRouteCodes, type RouteCodes } from './route-codes.ts'
import { componentSchemas, payloads } from './schemas.ts'
import { extraPaths } from './extra-paths.ts'
import { addHostRefusals, hostRefusalSchema, hostResponseComponents } from './host-responses.ts'
import { forGenerators } from './for-generators.ts'
import { simulatorBodySchemas } from '../api/sim-input.ts'

export type DocumentedRoute = FunctionConfig & { file: string }
type Operation = Record<string, unknown>

export interface DocumentOptions {
  /** The gateway's package version, shown as info.version. */
  version: string
  /** Codes per "METHOD path" beyond what configs declare; defaults to the spec's table. */
  routeCodes?: Record<string, RouteCodes>
  /** The simulated restaurant this gateway runs (none with a Zigbee radio): the simulator bodies state its numbers. */
  simulatedRestaurant?: { trackers: number; tables: number }
}

/**
 * Codes any route may answer (docs/api.md, "Envelope and errors"): unknown route/method, body too large, rate
 * limit, storage, cross-site, unknown host, a path with dot or empty segments, internal.
 */
const commonErrorCodes = [-5, -35, -36, -37, -39, -41, -49, -99]

// Path parameters: the schemas their parsers use (lib/api/fields.ts).
const paramDocs: Record<string, { description: string; schema: JsonSchema }> = Object.fromEntries(
  Object.entries(pathParams).map(([name, param]) => {
    const { description, ...schema } = jsonSchemaOf(param)
    return [name, { description: description as string, schema }]
  }),
)

/** v2/activeorders.id.page.post.ts → v2_activeorders_id_page_post */
export function operationId(file: string): string {
  return file.replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '_')
}

/** The OpenAPI path template of an itty path: /api/v2/orders/:uuid → /api/v2/orders/{uuid}. */
export function templateOf(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}')
}

const versionOf = (path: string) => (path.startsWith('/api/v1') ? 'v1' : 'v2')

/** Error returnCode → messages of every kind that answers with it, and its HTTP status. */
function errorCatalogue(): Map<number, { status: number; messages: string[]; kinds: ErrorKind[] }> {
  const byCode = new Map<number, { status: number; messages: string[]; kinds: ErrorKind[] }>()
  for (const kind of errorKinds) {
    const mapping = v2Errors[kind]
    const entry = byCode.get(mapping.code) ?? { status: mapping.status, messages: [], kinds: [] }
    const message = mapping.message()
    if (!entry.messages.includes(message)) entry.messages.push(message)
    entry.kinds.push(kind)
    byCode.set(mapping.code, entry)
  }
  return byCode
}

const outcomeNames = new Map<number, string>(Object.entries(outcomeCodes).map(([name, code]) => [code, name]))

function successResponses(route: DocumentedRoute, codes: RouteCodes | undefined): Record<string, unknown> {
  // A text answer (Prometheus' exposition) has no envelope: only its media type is documented.
  if (route.contentType) return { 200: { description: route.summary, content: { [route.contentType.split(';')[0]!]: { schema: { type: 'string' } } } } }
  const key = `${route.method} ${route.path}`
  const version = versionOf(route.path)
  const declaredStatuses = (codes?.outcomes ?? []).filter((n) => n < 1000)
  const status = String(route.successStatus ?? declaredStatuses[0] ?? 200)
  const outcomes = new Set<number>((codes?.outcomes ?? []).filter((n) => n >= 1000))
  for (const outcome of route.outcomes ?? []) outcomes.add(outcomeCodes[outcome])
  const properties: Record<string, JsonSchema> = { status: { const: Number(status) } }
  const lines = [route.summary]
  if (version === 'v2') {
    // The path's default code is answered unless the route only ever reports outcomes.
    const onlyOutcomes = codes !== undefined && declaredStatuses.length === 0 && outcomes.size > 0 && !route.code
    const returnCodes = [...(onlyOutcomes || route.code === undefined ? [] : [route.code]), ...[...outcomes].sort((a, b) => a - b)]
    properties.returnCode = { enum: returnCodes }
    for (const code of returnCodes) {
      lines.push(`- returnCode ${code}: ${code === route.code ? 'default code of the path' : outcomeNames.get(code)}`)
    }
  }
  Object.assign(properties, payloads[key] ?? {})
  // Every field named here is always sent (a generated client needs no check for them).
  const schema = {
    allOf: [
      { $ref: `#/components/schemas/${version === 'v2' ? 'V2Envelope' : 'V1Envelope'}` },
      { type: 'object', required: Object.keys(properties), properties },
    ],
  }
  return { [status]: { description: lines.join('\n'), content: { 'application/json': { schema } } } }
}

/**
 * The messages a route documents for an error code: those of the kinds it declares; for a code it
 * declares no kind of, those of the kinds no route declares (the common ones, e.g. -31 invalid
 * JSON and not another route's "tracking must be true or false").
 */
function messagesFor(route: DocumentedRoute, code: number, claimed: Set<string>): string[] {
  const kinds = errorKinds.filter((kind) => v2Errors[kind].code === code)
  const own = kinds.filter((kind) => route.errors?.includes(kind))
  const common = kinds.filter((kind) => !claimed.has(kind))
  const chosen = own.length ? own : common.length ? common : kinds
  return [...new Set(chosen.map((kind) => v2Errors[kind].message()))]
}

function errorResponses(route: DocumentedRoute, codes: RouteCodes | undefined, claimed: Set<string>): Record<string, unknown> {
  const catalogue = errorCatalogue()
  const version = versionOf(route.path)
  const errorCodes = new Set<number>(commonErrorCodes)
  if (route.auth === 'bearer') for (const c of [-1, -2]) errorCodes.add(c)
  if (takesToken(route)) errorCodes.add(v2Errors.SCOPE_DENIED.code)
  if (version === 'v2' && route.method === 'POST') errorCodes.add(-31)
  if (route.method !== 'GET') errorCodes.add(-40)
  for (const kind of route.errors ?? []) {
    const mapping = v2Errors[kind as ErrorKind]
    if (mapping) errorCodes.add(mapping.code)
  }
  const responses: Record<string, { lines: string[]; codes: number[] }> = {}
  const add = (status: number, code: number | undefined, line: string) => {
    const slot = (responses[String(status)] ??= { lines: [], codes: [] })
    if (code !== undefined && !slot.codes.includes(code)) slot.codes.push(code)
    if (!slot.lines.includes(line)) slot.lines.push(line)
  }
  if (version === 'v2') {
    for (const code of codes?.errors ?? []) errorCodes.add(code)
    for (const code of [...errorCodes].sort((a, b) => b - a)) {
      const known = catalogue.get(code)
      if (known) add(known.status, code, `- ${code}: ${messagesFor(route, code, claimed).join(' / ')}`)
    }
  } else {
    // v1 bodies carry no returnCode: document each error kind by the status v1 gives it.
    if (route.method === 'POST') errorCodes.add(-31)
    const kinds = new Set<ErrorKind>((route.errors ?? []).filter((k): k is ErrorKind => k in v2Errors))
    for (const code of errorCodes) for (const k of catalogue.get(code)?.kinds ?? []) kinds.add(k)
    for (const kind of kinds) {
      const envelope = errorEnvelope('v1', new DomainError(kind))
      add(envelope.status, undefined, `- ${String(envelope.body.message)}`)
    }
    for (const status of codes?.errors ?? []) {
      if (!responses[String(status)]) add(status, undefined, `- HTTP ${status}: the message says why`)
    }
  }
  const out: Record<string, unknown> = {}
  for (const [status, { lines, codes: returnCodes }] of Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))) {
    const schema =
      version === 'v2'
        ? {
            allOf: [
              { $ref: '#/components/schemas/V2Error' },
              { type: 'object', properties: { status: { const: Number(status) }, returnCode: { enum: returnCodes } } },
            ],
          }
        : { allOf: [{ $ref: '#/components/schemas/V1Error' }, { type: 'object', properties: { status: { const: Number(status) } } }] }
    out[status] = { description: lines.join('\n'), content: { 'application/json': { schema } }, ...(status === '429' ? { headers: retryAfter } : {}) }
  }
  return out
}

/** Sent with every 429 (runtime/host/auth.ts): when the address may present credentials again. */
export const retryAfter = {
  'Retry-After': { description: 'Seconds until this address may present credentials again', schema: { type: 'integer', minimum: 1 } },
}

function parameters(route: DocumentedRoute): unknown[] {
  const list: unknown[] = []
  for (const match of route.path.matchAll(/:(\w+)/g)) {
    const name = match[1]!
    const doc = paramDocs[name] ?? { description: name, schema: { type: 'string' } }
    list.push({ name, in: 'path', required: true, ...doc })
  }
  for (const [name, doc] of Object.entries(route.query ?? {})) {
    list.push({
      name,
      in: 'query',
      required: doc.required ?? false,
      description: doc.description,
      schema: doc.schema,
      ...(doc.scope ? { 'x-scope': doc.scope } : {}),
    })
  }
  return list
}

/** The scope a route that takes a token needs (a route that forgot one is held to admin, as the host does). */
function scopeOf(route: DocumentedRoute): Scope | undefined {
  return takesToken(route) ? (route.scope ?? defaultScope) : undefined
}

/**
 * Per route: the scheme and, as its role list (OpenAPI 3.1 allows roles for http schemes),
 * every token scope that may call it (docs/api.md, "Scopes").
 */
function security(route: DocumentedRoute): unknown[] {
  const scope = scopeOf(route)
  const roles = scope ? scopes.filter((held) => scopeAllows(held, scope)) : []
  if (route.auth === 'bearer') return [{ bearerAuth: roles }]
  // v1 routes are open unless the v1.basicAuth setting is on; then Basic with the token as user name.
  if (versionOf(route.path) === 'v1') return scope ? [{}, { v1BasicAuth: roles }] : [{}, { v1BasicAuth: [] }]
  return [{}]
}

function scopeNote(route: DocumentedRoute): string | undefined {
  const scope = scopeOf(route)
  if (!scope) return undefined
  const roles = scopes.filter((held) => scopeAllows(held, scope))
  const when = versionOf(route.path) === 'v1' ? 'With v1.basicAuth on, needs' : 'Needs'
  return `${when} a token of scope ${scope} or wider (${roles.join(', ')}); a narrower one is 403 (-51).`
}

function operation(route: DocumentedRoute, codes: RouteCodes | undefined, claimed: Set<string>): Operation {
  const op: Operation = {
    operationId: operationId(route.file),
    summary: route.summary,
    tags: [versionOf(route.path)],
    security: security(route),
    ...(scopeOf(route) ? { 'x-scope': scopeOf(route) } : {}),
    parameters: parameters(route),
    responses: { ...successResponses(route, codes), ...errorResponses(route, codes, claimed) },
  }
  if (route.auth === 'button') {
    op.description = 'Open, but answers only within 120 s of a press of the gateway button (else 403, -3).'
  }
  const note = scopeNote(route)
  if (note) op.description = note
  if (route.body) {
    const required = Array.isArray(route.body.required) && route.body.required.length > 0
    op.requestBody = { required, content: { 'application/json': { schema: route.body } } }
  }
  return op
}

export function buildOpenApiDocument(routes: DocumentedRoute[], options: DocumentOptions): Record<string, unknown> {
  const codes = options.routeCodes ?? specRouteCodes
  const paths: Record<string, Record<string, unknown>> = {}
  // OpenAPI forbids two templates that differ only in parameter names (/x/{id} and /x/{name}),
  // so such paths share the first template and each operation names its parameter the same.
  const templates = new Map<string, string>()
  const claimed = new Set(routes.flatMap((route) => route.errors ?? []))
  const ownBodies = options.simulatedRestaurant ? simulatorBodySchemas(options.simulatedRestaurant) : {}
  for (const route of routes) {
    const shape = route.path.replace(/:\w+/g, ':')
    const template = templates.get(shape) ?? templateOf(route.path)
    templates.set(shape, template)
    const op = operation(route, codes[`${route.method} ${route.path}`], claimed)
    const ownNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1])
    const sharedNames = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1])
    op.parameters = (op.parameters as { name: string; in: string }[]).map((p) =>
      p.in === 'path' ? { ...p, name: sharedNames[ownNames.indexOf(p.name)] ?? p.name } : p,
    )
    op['x-route'] = `${route.method} ${route.path}`
    const ownBody = ownBodies[op['x-route'] as string]
    if (ownBody && op.requestBody) op.requestBody = { ...(op.requestBody as object), content: { 'application/json': { schema: ownBody } } }
    ;(paths[template] ??= {})[route.method.toLowerCase()] = op
  }
  for (const [template, item] of Object.entries(extraPaths)) paths[template] = { ...(paths[template] ?? {}), ...item }
  addHostRefusals(paths)
  // A copy that shares nothing with the route configs and schemas it was built from: a consumer
  // that resolves $refs in place (validators do) would otherwise change the next document, and
  // the recursive SafeJsonValue would then make it a cycle.
  return forGenerators(
    structuredClone({
      openapi: '3.1.0',
      info: {
        title: 'Tracker Gateway API',
        version: options.version,
        description:
          'JSON HTTP API of the order-tracking gateway, v1 and v2. Every body carries `status` equal to the HTTP status; ' +
          'v2 adds `returnCode` (the path default 1-999, an outcome above 1000, or a negative error).',
      },
      servers: [{ url: '/' }],
      tags: [
        { name: 'v2', description: 'Current API; bearer tokens from the gateway button' },
        { name: 'v1', description: 'Legacy API; open unless v1.basicAuth is on' },
        { name: 'board', description: 'Routes outside the manifest: the board, these docs, the WebSocket feed' },
      ],
      paths,
      components: {
        schemas: { ...componentSchemas, HostRefusal: hostRefusalSchema },
        responses: hostResponseComponents(),
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              '48 hex characters from /api/v2/accesstoken/generate. Each token has a scope (read < screen < pos < admin, each holding ' +
              'the ones before it); the roles an operation lists are the scopes that may call it, and a narrower token gets 403 (-51).',
          },
          v1BasicAuth: {
            type: 'http',
            scheme: 'basic',
            description: 'User name: an access token; password empty (only when v1.basicAuth is on). The roles listed are the token scopes that may call it.',
          },
        },
      },
    }),
  )
}
