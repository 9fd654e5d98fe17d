// Builds the router from the manifest (routes compiled by itty-router, run by dispatch.ts).
// Owns: the per-request context, the auth gate, the body limit, version-aware 404s, and the
// one place errors become envelopes.
import { hostname } from 'node:os'
import type { Duplex } from 'node:stream'
import { Router } from 'itty-router'
import { type ApiVersion, errorEnvelope, okEnvelope, toDomainError } from '../../lib/api/envelope.ts'
import { parseJsonObject } from '../../lib/api/value-parsers.ts'
import { type Presenter, presenter } from '../../lib/api/request-presenter.ts'
import { HostAllowList, refusal } from '../../lib/api/request-guard.ts'
import { isCanonicalPath } from '../../lib/api/request-path.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import { authorizeNow } from './auth.ts'
import { markAuthenticated } from './connection-limits.ts'
import { answersAlways, createDispatcher } from './dispatch.ts'
import type { FunctionServices } from './function-services.ts'
import type { Caller, GatewayContext, ManifestEntry, OkOptions } from './function-types.ts'
import { NodeRequest } from './node-request.ts'
import { RequestLog } from './request-log.ts'
import { jsonResponse } from './respond.ts'
import { textResponse } from './bytes-response.ts'
import type { Services } from '../wiring/services.ts'
import { functionServices } from '../wiring/services-for-functions.ts'
import { headRoutes, simulatedRestaurantOf, staticRoutes } from './static.ts'

export const maxBodyBytes = 16 * 1024

/** What the HTTP host passes as the second argument (absent in tests). */
export interface ServerContext {
  req?: { socket?: { remoteAddress?: string }; url?: string }
}

export interface GatewayRouter {
  fetch(request: Request, serverContext?: ServerContext): Promise<Response>
}

type RoutedRequest = Request & { params?: Record<string, string>; parsedUrl?: URL; route?: string }

/** The request URL, parsed once per request however many steps ask for it. */
function urlOf(request: RoutedRequest): URL {
  return (request.parsedUrl ??= new URL(request.url))
}

// A request from the HTTP host already has its path and query split off the raw target, so
// it needs no second URL parse (itty-router parses once for matching). The raw path is what
// the client sent: the log shows it, and its /api/v1 prefix picks the 404 envelope.
function pathOf(request: RoutedRequest): string {
  return request instanceof NodeRequest ? request.pathname : urlOf(request).pathname
}

/**
 * The path as the client sent it. The reference host's Request has a URL-parsed path already
 * (".." resolved); node's request, when there is one, still has the target as sent.
 */
function sentPathOf(request: RoutedRequest, serverContext: ServerContext | undefined): string {
  if (request instanceof NodeRequest) return request.pathname
  const target = serverContext?.req?.url
  if (target?.[0] === '/') {
    const q = target.indexOf('?')
    return q < 0 ? target : target.slice(0, q)
  }
  return urlOf(request).pathname
}

function queryOf(request: RoutedRequest): URLSearchParams {
  return request instanceof NodeRequest ? new URLSearchParams(request.search) : urlOf(request).searchParams
}

export function versionOfPath(pathname: string): ApiVersion {
  return pathname === '/api/v1' || pathname.startsWith('/api/v1/') ? 'v1' : 'v2'
}

async function readBody(request: Request): Promise<Record<string, unknown>> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > maxBodyBytes) throw new DomainError('BODY_TOO_LARGE')
  // From the socket the host gave us, the body is read straight off node's stream.
  const bytes = request instanceof NodeRequest ? await request.readBody(maxBodyBytes) : await readStream(request.body)
  if (bytes === undefined) throw new DomainError('BODY_TOO_LARGE')
  return parseJsonObject(bytes.toString('utf8'))
}

/** A fetch body stream up to maxBodyBytes; undefined when it is larger. */
async function readStream(body: ReadableStream<Uint8Array> | null): Promise<Buffer | undefined> {
  if (!body) return Buffer.alloc(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBodyBytes) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

/**
 * Path parameters as text: itty-router hands them over as sent, so /activeorders/%31%32 is
 * order 12. A malformed escape is left as it is (and then refused by the parameter's parser).
 */
function decodedParams(params: Record<string, string> | undefined): Record<string, string> {
  if (!params) return {}
  for (const key in params) {
    const value = params[key]
    if (value.includes('%')) {
      try {
        params[key] = decodeURIComponent(value)
      } catch {}
    }
  }
  return params
}

function callerOf(serverContext: ServerContext | undefined): Caller {
  // Without a socket (router.fetch called in-process) the caller is the local host; tests
  // that need another address pass a server context naming it, as the HTTP host does.
  const ip = serverContext?.req?.socket?.remoteAddress ?? '127.0.0.1'
  return { ip: ip.startsWith('::ffff:') ? ip.slice(7) : ip }
}

/**
 * What a function gets as `ctx`. A class, not an object literal with a getter and closures:
 * built for every request, the literal was the router's largest own cost.
 */
class RequestContext implements GatewayContext {
  readonly #version: ApiVersion
  readonly #config: ManifestEntry
  readonly services: FunctionServices
  readonly params: Record<string, string>
  readonly caller: Caller
  readonly #request: RoutedRequest
  #query: URLSearchParams | undefined
  #body: Promise<Record<string, unknown>> | undefined
  #present: Presenter | undefined

  constructor(entry: ManifestEntry, version: ApiVersion, services: FunctionServices, request: RoutedRequest, caller: Caller) {
    this.#version = version
    this.#config = entry
    this.services = services
    this.params = decodedParams(request.params)
    this.caller = caller
    this.#request = request
  }

  get present(): Presenter {
    return (this.#present ??= presenter(this.#version, this.services))
  }

  get query(): URLSearchParams {
    return (this.#query ??= queryOf(this.#request))
  }

  body(): Promise<Record<string, unknown>> {
    return (this.#body ??= readBody(this.#request))
  }

  ok(payload: Record<string, unknown> = {}, options: OkOptions = {}): Response {
    const envelope = okEnvelope(this.#version, this.#config.code, payload, {
      outcome: options.outcome,
      status: options.status ?? this.#config.successStatus,
      message: options.message,
    })
    return jsonResponse(envelope, options.headers)
  }

  text(body: string, contentType: string): Response {
    return textResponse(body, contentType)
  }
}

function invoke(entry: ManifestEntry, services: Services, forFunctions: FunctionServices) {
  const version: ApiVersion = entry.path.startsWith('/api/v1') ? 'v1' : 'v2'
  const checked = (response: Response): Response => {
    if (!(response && typeof response === 'object' && 'status' in response)) {
      throw new Error(`${entry.file} returned no Response`)
    }
    return response
  }
  // Not an async function: with the checks synchronous, one promise (the function's, then
  // checked) is all a request needs here (issue 30). A refusal still arrives as a rejection.
  // What the request count calls this route (runtime/wiring/gateway-metrics.ts).
  const route = `${entry.method} ${entry.path}`
  const handler = (request: RoutedRequest, serverContext?: ServerContext): Promise<Response> => {
    request.route = route
    try {
      const caller = callerOf(serverContext)
      authorizeNow(entry, request, services, caller)
      // Its connection is a known client's now: never shed to make room (connection-limits.ts).
      if (caller.token) markAuthenticated(serverContext?.req?.socket as Duplex | undefined)
      return Promise.resolve(entry.handler(request, new RequestContext(entry, version, forFunctions, request, caller))).then(checked)
    } catch (error) {
      return Promise.reject(error)
    }
  }
  return answersAlways(handler)
}

export function buildRouter(
  manifest: ManifestEntry[],
  services: Services,
  hosts = HostAllowList.forHost(hostname(), services.config.http.allowedHosts),
): GatewayRouter {
  const requestLog = new RequestLog(services.log)
  // itty-router compiles the routes; runtime/host/dispatch.ts runs them (see there why).
  const table = Router<RoutedRequest, [ServerContext | undefined]>()
  const forFunctions = functionServices(services)
  for (const entry of manifest) {
    const method = entry.method.toLowerCase() as 'get' | 'post' | 'delete'
    table[method](entry.path, invoke(entry, services, forFunctions))
  }
  // The board, /docs, /api/openapi.json and /assets/* (runtime/host/static.ts); other paths fall through.
  const staticAnswers = staticRoutes(manifest, { simulatedRestaurant: simulatedRestaurantOf(services.config) })
  table.get('*', staticAnswers)
  table.head('*', headRoutes(staticAnswers))
  table.all('*', () => {
    throw new DomainError('ROUTE_NOT_FOUND')
  })
  const dispatch = createDispatcher<[ServerContext | undefined]>(table.routes)

  const answerError = (error: unknown, request: RoutedRequest, sentPath: string): Response => {
    const domainError = toDomainError(error)
    if (domainError.kind === 'INTERNAL') {
      services.log.error({ err: error, method: request.method, url: request.url }, 'unexpected error')
    }
    return jsonResponse(errorEnvelope(versionOfPath(sentPath), domainError))
  }

  return {
    fetch: async (request: RoutedRequest, serverContext) => {
      const startedAt = performance.now()
      let response: Response
      // What the client sent decides the error envelope's version on every host alike.
      const sent = sentPathOf(request, serverContext)
      try {
        const declared = request.headers.get('content-length')
        if (declared !== null && Number(declared) > maxBodyBytes) throw new DomainError('BODY_TOO_LARGE')
        // The guard and the routes must see one path: lib/api/request-path.ts.
        if (!isCanonicalPath(sent)) throw new DomainError('PATH_NOT_CANONICAL')
        // Web pages on the LAN (other sites, rebound names) get nothing: lib/api/request-guard.ts.
        const refused = refusal(request.method, pathOf(request), request.headers, hosts)
        if (refused) throw new DomainError(refused)
        // The catch-all route throws ROUTE_NOT_FOUND, so some route always answers.
        response = (await dispatch(request, serverContext))!
      } catch (error) {
        response = answerError(error, request, sent)
      }
      const elapsed = performance.now() - startedAt
      const ms = Math.round(elapsed * 100) / 100
      // Files, unknown paths and refusals before routing are counted as one route per method.
      const route = request.route ?? `${request.method} other`
      services.requests.add(route, response.status)
      services.requestDurations.observe(route, elapsed / 1000)
      requestLog.request(request.method, sent.slice(0, 256), response.status, ms, response.status >= 400 ? callerOf(serverContext).ip : undefined)
      return response
    },
  }
}
