// Every answer a test receives from the in-process gateway is held to the served OpenAPI
// document (issue 44: "every response seen in the test suite validates against the document").
// testGateway() wraps its router with checkedRouter(): the answer's route (the document's path
// template and method), status, content type and JSON body must be what the document gives for
// them, or the call throws, failing the test that made it with the route, status and schema error.
// A path or method no operation has (a malformed or unknown request) must answer with the
// documented error envelope of its API version. Answers that do not pass a router are checked
// where the test receives them: serverFrameProblem (WebSocket frames), incomingProblem (a
// refused upgrade), answerProblem (an openapi-fetch middleware), checkFetchAnswers (fetch to a
// gateway process). The document is built and each validator
// compiled once per process; RESPONSE_CHECK_LOG=<file> appends each checked
// "METHOD template status" line, to count what a run covered.
import { appendFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import Ajv2020 from 'ajv/dist/2020.js'
import { manifest } from '../../functions/_manifest.gen.ts'
import { buildOpenApiDocument } from '../../lib/openapi/document.ts'
import type { GatewayRouter } from '../../runtime/host/router.ts'

type Validate = ((value: unknown) => boolean) & { errors?: unknown }
type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, unknown> }

const ajv = new (Ajv2020 as unknown as new (options: object) => { compile(schema: object): Validate; addSchema(schema: object): unknown })({
  strict: false,
  validateFormats: false,
  allErrors: true,
})

const componentsId = 'https://gateway.test/components'
let document: Doc | undefined
/** The gateway's document (its responses do not depend on the config a test gives). */
export function gatewayDocument(): Doc {
  if (!document) {
    document = buildOpenApiDocument(manifest, { version: 'test' }) as Doc
    // The components are compiled once, as their own schema; each response schema refers to them there.
    ajv.addSchema({ $id: componentsId, components: document.components })
  }
  return document
}

/** Templates with fewer parameters first, so /board/pairing/approve wins over /board/pairing/{id}. */
let templates: { template: string; pattern: RegExp }[] | undefined
function templatesOf(doc: Doc) {
  templates ??= Object.keys(doc.paths)
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`), params: template.split('{').length }))
    .sort((a, b) => a.params - b.params)
  return templates
}

const validators = new Map<string, Validate>()
function validatorOf(key: string, schema: object): Validate {
  let validate = validators.get(key)
  if (!validate) {
    gatewayDocument()
    validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${componentsId}#/components/`)))
    validators.set(key, validate)
  }
  return validate
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
export function documentProblem(answer: CheckedAnswer, doc: Doc = gatewayDocument()): string | undefined {
  const method = answer.method.toUpperCase()
  const operationMethod = method === 'HEAD' ? 'get' : method.toLowerCase()
  const found = templatesOf(doc).find(({ template, pattern }) => pattern.test(answer.path) && doc.paths[template]?.[operationMethod])
  const route = found ? `${method} ${found.template}` : `${method} ${answer.path} (no documented operation)`
  const pair = `${found ? `${method} ${found.template}` : `${method} (undocumented path)`} ${answer.status}`
  checkedPairs.add(pair)
  if (process.env.RESPONSE_CHECK_LOG) appendFileSync(process.env.RESPONSE_CHECK_LOG, `${pair}\n`)
  let schema: object | undefined
  let key: string
  if (found) {
    const response = doc.paths[found.template][operationMethod].responses[String(answer.status)]
    if (!response)
      return `${route}: status ${answer.status} is not documented (documented: ${Object.keys(doc.paths[found.template][operationMethod].responses).join(', ')})`
    const content = response.content as Record<string, { schema?: object }> | undefined
    if (!content || method === 'HEAD' || answer.status === 304) return undefined
    const json = content['application/json']
    const type = answer.contentType ?? ''
    if (!json) {
      const documented = Object.keys(content)
      const base = type.split(';')[0]!.trim()
      return documented.includes('*/*') || documented.includes(base)
        ? undefined
        : `${route} ${answer.status}: content type ${type} is not documented (${documented.join(', ')})`
    }
    if (!/^application\/json\b/.test(type)) return `${route} ${answer.status}: content type ${type || '(none)'} where the document says application/json`
    schema = json.schema
    key = `${operationMethod} ${found.template} ${answer.status}`
  } else {
    // No operation for this method and path: only the error envelope of the path's API version.
    if (answer.status < 400) return `${route}: answered ${answer.status}, but no operation is documented for it`
    if (method === 'HEAD') return undefined
    if (!/^application\/json\b/.test(answer.contentType ?? ''))
      return `${route} ${answer.status}: content type ${answer.contentType ?? '(none)'} where an error envelope is JSON`
    const v1 = answer.path.startsWith('/api/v1')
    schema = {
      allOf: [{ $ref: `#/components/schemas/${v1 ? 'V1Error' : 'V2Error'}` }, { properties: { status: { const: answer.status } } }],
    }
    key = `undocumented ${v1 ? 'v1' : 'v2'} ${answer.status}`
  }
  if (!schema) return undefined
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return `${route} ${answer.status}: the body is not JSON: ${answer.body.slice(0, 200)}`
  }
  const validate = validatorOf(key, schema)
  if (validate(body)) return undefined
  return `${route} ${answer.status} does not match the document: ${JSON.stringify(validate.errors)}; body: ${answer.body.slice(0, 400)}`
}

/** What is wrong with one answer (read from a clone; the caller's Response is untouched), or undefined. */
export async function answerProblem(request: Request, response: Response): Promise<string | undefined> {
  const body = response.body === null ? '' : await response.clone().text()
  const problem = documentProblem({
    method: request.method,
    path: new URL(request.url).pathname,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body,
  })
  return problem && `Answer outside the OpenAPI document: ${problem}`
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
export function serverFrameProblem(frame: unknown, doc: Doc = gatewayDocument()): string | undefined {
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
  const validate = validatorOf(key, schema)
  if (validate(frame)) return undefined
  return `WebSocket frame outside the document (${key}): ${JSON.stringify(validate.errors)}; frame: ${JSON.stringify(frame).slice(0, 400)}`
}

/** documentProblem for an answer read off a socket (a WebSocket upgrade's refusal, a raw HTTP answer). */
export async function incomingProblem(method: string, path: string, response: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  const contentType = response.headers['content-type'] ?? null
  return documentProblem({ method, path, status: response.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString() })
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
    const doc = gatewayDocument()
    const known = path.startsWith('/api/') || templatesOf(doc).some(({ pattern }) => pattern.test(path))
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
