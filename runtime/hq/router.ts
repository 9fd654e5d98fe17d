// HQ's router: the same pieces as the gateway's (itty-router's route table run by
// runtime/host/dispatch.ts, v2 envelopes, the static file server for its board), over HQ's
// manifest, services and tokens.
import { Router } from 'itty-router'
import { okEnvelope } from '../../lib/api/envelope.ts'
import { HqError, hqErrors } from '../../lib/hq/errors.ts'
import { buildHqOpenApiDocument } from '../../lib/openapi/hq-document.ts'
import type { HqTokens } from '../../lib/hq/tokens.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { DurationHistograms } from '../../lib/kernel/metrics-text.ts'
import { createDispatcher } from '../host/dispatch.ts'
import type { OkOptions } from '../host/function-types.ts'
import { NodeRequest } from '../host/node-request.ts'
import { jsonResponse } from '../host/respond.ts'
import { BytesResponse, textResponse } from '../host/bytes-response.ts'
import type { GatewayRouter, ServerContext } from '../host/router.ts'
import { headRoutes, packageVersion, staticRoutes } from '../host/static.ts'
import type { HqCaller, HqContext, HqManifestEntry } from './function-types.ts'
import type { HqServices } from './services.ts'

export const hqWebRoot = new URL('../../web/hq/', import.meta.url).pathname

/** route: "METHOD /path" of the manifest entry that answered (the duration histogram's key). */
type RoutedRequest = Request & { params?: Record<string, string>; route?: string }

const bearer = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i

export function errorResponse(kind: keyof typeof hqErrors, detail?: string): Response {
  const { status, code } = hqErrors[kind]
  const message = detail ?? hqErrors[kind].message
  return jsonResponse({ status, body: { status, returnCode: code, message } })
}

function queryOf(request: Request): URLSearchParams {
  return request instanceof NodeRequest ? new URLSearchParams(request.search) : new URL(request.url).searchParams
}

function decoded(params: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(params ?? {})) {
    try {
      out[key] = decodeURIComponent(value)
    } catch {
      out[key] = value
    }
  }
  return out
}

/** The body up to `limit` bytes (undefined past it), from the host's request or any fetch Request. */
async function readBody(request: Request, limit: number): Promise<Buffer | undefined> {
  if (request instanceof NodeRequest) return request.readBody(limit)
  const bytes = Buffer.from(await request.arrayBuffer())
  return bytes.length > limit ? undefined : bytes
}

/** The body handed to `sink` piece by piece (the next once the sink is done); its size, undefined past `limit`. */
async function streamBody(request: Request, limit: number, sink: (chunk: Buffer) => Promise<void>): Promise<number | undefined> {
  if (request instanceof NodeRequest) return request.streamBody(limit, sink)
  const reader = request.body?.getReader()
  let size = 0
  for (;;) {
    const piece = await reader?.read()
    if (!piece || piece.done) return size
    size += piece.value.length
    if (size > limit) {
      await reader!.cancel()
      return undefined
    }
    await sink(Buffer.from(piece.value))
  }
}

export interface HqRouterOptions {
  manifest: HqManifestEntry[]
  services: HqServices
  tokens: Pick<HqTokens, 'verify'>
  log: Logger
  /** Where each answer's duration is observed, by route (GET /api/hq/metrics serves them). */
  requestDurations?: DurationHistograms
}

export function buildHqRouter({ manifest, services, tokens, log, requestDurations }: HqRouterOptions): GatewayRouter {
  const table = Router<RoutedRequest, [ServerContext | undefined]>()
  for (const entry of manifest) {
    const method = entry.method.toLowerCase() as 'get' | 'post' | 'delete'
    const route = `${entry.method} ${entry.path}`
    table[method](entry.path, async (request: RoutedRequest, serverContext?: ServerContext) => {
      request.route = route
      const ip = serverContext?.req?.socket?.remoteAddress ?? '127.0.0.1'
      const caller: HqCaller = { ip }
      if (entry.auth === 'bearer') {
        const header = request.headers.get('authorization') ?? ''
        if (header === '') throw new HqError('AUTH_REJECTED')
        const match = bearer.exec(header)
        if (!match) throw new HqError('AUTH_MALFORMED')
        const identity = await tokens.verify(match[1]!)
        if (!identity) throw new HqError('AUTH_REJECTED')
        caller.token = identity
        if (entry.scope === 'admin' && identity.scope !== 'admin') throw new HqError('SCOPE_INSUFFICIENT')
      }
      const ctx: HqContext = {
        services,
        params: decoded(request.params),
        query: queryOf(request),
        caller,
        ok: (payload: Record<string, unknown> = {}, options: OkOptions = {}) =>
          jsonResponse(
            okEnvelope('v2', entry.code, payload, { outcome: options.outcome, status: options.status ?? entry.successStatus, message: options.message }),
            options.headers,
          ),
        text: (body: string, contentType: string) => textResponse(body, contentType),
        body: (limit: number) => readBody(request, limit),
        streamBody: (limit, sink) => streamBody(request, limit, sink),
        bytes: (status, headers, body) => new BytesResponse(status, headers, body) as unknown as Response,
      }
      return entry.handler(request, ctx)
    })
  }
  const statics = staticRoutes(manifest, { webRoot: hqWebRoot, openApiDocument: () => buildHqOpenApiDocument(manifest, packageVersion()) })
  table.get('*', statics)
  table.head('*', headRoutes(statics))
  table.all('*', () => {
    throw new HqError('ROUTE_NOT_FOUND')
  })
  const dispatch = createDispatcher<[ServerContext | undefined]>(table.routes)
  return {
    fetch: async (request: RoutedRequest, serverContext) => {
      const startedAt = performance.now()
      try {
        return (await dispatch(request, serverContext))!
      } catch (error) {
        if (error instanceof HqError) return errorResponse(error.kind, error.message)
        const code = (error as { code?: string }).code ?? ''
        // Connection refused / closed, or PostgreSQL shutting down: say so, not "internal".
        if (/^(ECONNREFUSED|ECONNRESET|57P0[1-3]|08\d\d\d)$/.test(code) || /Connection terminated|connection timeout/i.test(String((error as Error).message))) {
          return errorResponse('STORAGE_UNAVAILABLE')
        }
        log.error({ err: error, method: request.method, url: request.url }, 'hq: unexpected error')
        return errorResponse('INTERNAL')
      } finally {
        // The board's files and unknown paths: one route per method, as on a gateway.
        requestDurations?.observe(request.route ?? `${request.method} other`, (performance.now() - startedAt) / 1000)
      }
    },
  }
}
