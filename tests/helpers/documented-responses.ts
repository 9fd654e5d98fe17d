// Every answer a test receives from the in-process gateway is held to the served OpenAPI
// document (issue 44: "every response seen in the test suite validates against the document").
// testGateway() wraps its router with checkedRouter(): the answer's route (the document's path
// template and method), status, content type and JSON body must be what the document gives for
// them, or the call throws, failing the test that made it with the route, status and schema error.
// A path or method no operation has (a malformed or unknown request) must answer with the
// documented error envelope of its API version (or the HTTP host's own answer of that status,
// lib/api/host-refusals.ts). Answers that do not pass a router are checked
// where the test receives them: serverFrameProblem (WebSocket frames), incomingProblem (a
// refused upgrade), answerProblem (an openapi-fetch middleware; fetch to a server a test
// started, ./checked-origins.ts), checkFetchAnswers (fetch to any loopback gateway while a
// test runs). A DescribedApi is one document (the gateway's, HQ's); it is built and each validator
// compiled once per process; RESPONSE_CHECK_LOG=<file> appends each checked
// "METHOD template status" line, to count what a run covered.
import { appendFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import Ajv2020 from 'ajv/dist/2020.js'
import { manifest } from '../../functions/_manifest.gen.ts'
import { buildOpenApiDocument } from '../../lib/openapi/document.ts'
import type { GatewayRouter } from '../../runtime/host/router.ts'
import { hostRefusals } from '../../lib/api/host-refusals.ts'

type Validate = ((value: unknown) => boolean) & { errors?: unknown }
export type OpenApiDoc = { paths: Record<string, Record<string, any>>; components: Record<string, unknown> }

const ajv = new (Ajv2020 as unknown as new (options: object) => { compile(schema: object): Validate; addSchema(schema: object): unknown })({
  strict: false,
  validateFormats: false,
  allErrors: true,
})

/**
 * One API's document and what checking against it needs, built once per process: the
 * templates (fewer parameters first, so /board/pairing/approve wins over /board/pairing/{id}),
 * the compiled validators, and the error envelope a path without an operation may answer.
 */
export class DescribedApi {
  readonly name: string
  readonly #build: () => OpenApiDoc
  /** The key and schema of the error envelope a path or method without an operation answers with. */
  readonly unmatched: (path: string, status: number) => { key: string; schema: object }
  #doc: OpenApiDoc | undefined
  #templates: { template: string; pattern: RegExp }[] | undefined
  readonly #validators = new Map<string, Validate>()

  constructor(name: string, build: () => OpenApiDoc, unmatched: (path: string, status: number) => { key: string; schema: object }) {
    this.name = name
    this.#build = build
    this.unmatched = unmatched
  }

  get componentsId(): string {
    return `https://${this.name}.test/components`
  }

  get doc(): OpenApiDoc {
    this.#doc ??= this.#load()
    return this.#doc
  }

  #load(): OpenApiDoc {
    const doc = this.#build()
    // The components are compiled once, as their own schema; each response schema refers to them there.
    ajv.addSchema({ $id: this.componentsId, components: doc.components })
    return doc
  }

  get templates(): { template: string; pattern: RegExp }[] {
    this.#templates ??= Object.keys(this.doc.paths)
      .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`), params: template.split('{').length }))
      .sort((a, b) => a.params - b.params)
    return this.#templates
  }

  validator(key: string, schema: object): Validate {
    let validate = this.#validators.get(key)
    if (!validate) {
      this.#doc ??= this.#load()
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${this.componentsId}#/components/`)))
      this.#validators.set(key, validate)
    }
    return validate
  }
}

const envelopeOf = (ref: string, status: number) => ({ allOf: [{ $ref: `#/components/schemas/${ref}` }, { properties: { status: { const: status } } }] })

/** The gateway's document (its responses do not depend on the config a test gives). */
export const gatewayApi = new DescribedApi(
  'gateway',
  () => buildOpenApiDocument(manifest, { version: 'test' }) as OpenApiDoc,
  (path, status) => {
    const v1 = path.startsWith('/api/v1')
    return { key: `undocumented ${v1 ? 'v1' : 'v2'} ${status}`, schema: envelopeOf(v1 ? 'V1Error' : 'V2Error', status) }
  },
)

export function gatewayDocument(): OpenApiDoc {
  return gatewayApi.doc
}

/** "METHOD template status" of every answer checked in this process. */
export const checkedPairs = new Set<string>()

export interface CheckedAnswer {
  method: string
  /** The request path (no query). */
  path: string
  status: number
  contentType: string | null
  /** The body text ('' when none). */
  body: string
}

/** What is wrong with an answer by the document, or undefined when it conforms. */
export function documentProblem(answer: CheckedAnswer, api: DescribedApi = gatewayApi): string | undefined {
  const doc = api.doc
  const method = answer.method.toUpperCase()
  const operationMethod = method === 'HEAD' ? 'get' : method.toLowerCase()
  const found = api.templates.find(({ template, pattern }) => pattern.test(answer.path) && doc.paths[template]?.[operationMethod])
  const route = found ? `${method} ${found.template}` : `${method} ${answer.path} (no documented operation)`
  const pair = `${found ? `${method} ${found.template}` : `${method} (undocumented path)`} ${answer.status}`
  checkedPairs.add(pair)
  if (process.env.RESPONSE_CHECK_LOG) appendFileSync(process.env.RESPONSE_CHECK_LOG, `${pair}\n`)
  let schema: object | undefined
  let key: string
  if (found) {
    let response = doc.paths[found.template][operationMethod].responses[String(answer.status)]
    // A shared response (the host's own answers): components/responses/<name>.
    if (typeof response?.$ref === 'string') response = (doc.components.responses as Record<string, any>)[response.$ref.split('/').pop()]
    if (!response)
      return `${route}: status ${answer.status} is not documented (documented: ${Object.keys(doc.paths[found.template][operationMethod].responses).join(', ')})`
    const content = response.content as Record<string, { schema?: object }> | undefined
    if (!content || method === 'HEAD' || answer.status === 304) return undefined
    const json = content['application/json']
    const type = answer.contentType ?? ''
    const documented = Object.keys(content)
    // A route may answer in more than one media type (HQ's format=csv): any documented one will do.
    if (!/^application\/json\b/.test(type)) {
      const base = type.split(';')[0]!.trim()
      if (documented.includes('*/*') || documented.includes(base)) return undefined
      return documented.length === 1 && json
        ? `${route} ${answer.status}: content type ${type || '(none)'} where the document says application/json`
        : `${route} ${answer.status}: content type ${type || '(none)'} is not documented (${documented.join(', ')})`
    }
    if (!json) return documented.includes('*/*') ? undefined : `${route} ${answer.status}: content type ${type} is not documented (${documented.join(', ')})`
    schema = json.schema
    key = `${operationMethod} ${found.template} ${answer.status}`
  } else {
    // No operation for this method and path: only the error envelope of the path's API version.
    if (answer.status < 400) return `${route}: answered ${answer.status}, but no operation is documented for it`
    if (method === 'HEAD') return undefined
    if (!/^application\/json\b/.test(answer.contentType ?? ''))
      return `${route} ${answer.status}: content type ${answer.contentType ?? '(none)'} where an error envelope is JSON`
    ;({ key, schema } = api.unmatched(answer.path, answer.status))
    // Or the HTTP host's own answer of that status, which comes before any route (a path or not).
    const host = Object.entries(hostRefusals).find(([, refusal]) => refusal.status === answer.status)
    if (host) schema = { anyOf: [schema, { $ref: `#/components/responses/${host[0]}/content/application~1json/schema` }] }
  }
  if (!schema) return undefined
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return `${route} ${answer.status}: the body is not JSON: ${answer.body.slice(0, 200)}`
  }
  const validate = api.validator(key, schema)
  if (validate(body)) return undefined
  return `${route} ${answer.status} does not match the document: ${JSON.stringify(validate.errors)}; body: ${answer.body.slice(0, 400)}`
}

/** What is wrong with one answer (read from a clone; the caller's Response is untouched), or undefined. */
export async function answerProblem(request: { method: string; url: string }, response: Response, api: DescribedApi = gatewayApi): Promise<string | undefined> {
  const body = response.body === null ? '' : await response.clone().text()
  const problem = documentProblem(
    {
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      contentType: response.headers.get('content-type'),
      body,
    },
    api,
  )
  return problem && `Answer outside the OpenAPI document (${api.name}): ${problem}`
}

/**
 * A router whose every answer is checked against the document (see the header). A mismatch
 * throws, failing the call; behind an HTTP host (which would turn the throw into a 500) pass
 * `onProblem` (e.g. the test's t.fail) instead.
 */
export function checkedRouter<R extends GatewayRouter>(router: R, onProblem?: (problem: string) => void): R {
  const fetch = router.fetch.bind(router) as (request: Request, ...rest: unknown[]) => Promise<Response>
  return Object.assign(Object.create(router), {
    fetch: async (request: Request, ...rest: unknown[]) => {
      const response = await fetch(request, ...rest)
      const problem = await answerProblem(request, response)
      if (problem && onProblem) onProblem(problem)
      else if (problem) throw new Error(problem)
      return response
    },
  }) as R
}

/**
 * What is wrong with a frame the gateway sent on the WebSocket feed, by the document's
 * x-websocket (GET /api/v2/websocket): an error frame (one without a type) is held to the 101
 * response's x-error-frames, the snapshot to WsActiveOrdersFrame, any other to WsOrderChangeFrame.
 */
export function serverFrameProblem(frame: unknown): string | undefined {
  const doc = gatewayApi.doc
  const get = doc.paths['/api/v2/websocket']!.get
  const documented = (get['x-websocket'].serverFrames as { $ref: string }[]).map((s) => s.$ref)
  const record = (frame ?? {}) as Record<string, unknown>
  let key: string
  let schema: object
  if (!('type' in record)) {
    key = 'ws error frame'
    schema = get.responses['101']['x-error-frames']
  } else {
    const name = record.type === 'ACTIVE_ORDERS' ? 'WsActiveOrdersFrame' : record.type === 'SCREEN_SETTINGS' ? 'WsScreenSettingsFrame' : 'WsOrderChangeFrame'
    key = `ws ${name}`
    const ref = `#/components/schemas/${name}`
    schema = { $ref: ref }
    if (!documented.includes(ref)) return `${name} is not among the feed's documented frames (${documented.join(', ')})`
  }
  checkedPairs.add(key)
  if (process.env.RESPONSE_CHECK_LOG) appendFileSync(process.env.RESPONSE_CHECK_LOG, `${key}\n`)
  const validate = gatewayApi.validator(key, schema)
  if (validate(frame)) return undefined
  return `WebSocket frame outside the document (${key}): ${JSON.stringify(validate.errors)}; frame: ${JSON.stringify(frame).slice(0, 400)}`
}

/** documentProblem for an answer read off a socket (a WebSocket upgrade's refusal, a raw HTTP answer). */
export async function incomingProblem(method: string, path: string, response: IncomingMessage, api: DescribedApi = gatewayApi): Promise<string | undefined> {
  const chunks: Buffer[] = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  const contentType = response.headers['content-type'] ?? null
  return documentProblem({ method, path, status: response.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString() }, api)
}

/**
 * For tests that reach a gateway over real HTTP with fetch (a gateway process, a host on
 * loopback): while the test runs, every answer fetch gets from loopback for an /api/ path or a
 * documented one is checked, and one outside the document fails `t`. Other servers a test
 * talks to (webhook receivers, fakes) answer other paths and are left alone.
 */
export function checkFetchAnswers(t: { fail(message: string): unknown; teardown(fn: () => void): unknown }): void {
  const original = globalThis.fetch
  const checked: typeof fetch = async (input, init) => {
    const response = await original(input, init)
    const request = new Request(input, init)
    const url = new URL(request.url)
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
    const path = url.pathname
    const known = path.startsWith('/api/') || gatewayApi.templates.some(({ pattern }) => pattern.test(path))
    if (loopback && known) {
      const problem = await answerProblem(request, response)
      if (problem) t.fail(problem)
    }
    return response
  }
  globalThis.fetch = checked
  t.teardown(() => {
    globalThis.fetch = original
  })
}
