// Builds the itty-router Router from the manifest. Owns: the per-request context, the auth
// gate, the body limit, version-aware 404s, and the one place errors become envelopes.
import { Router } from 'itty-router'
import { type ApiVersion, errorEnvelope, okEnvelope, toDomainError } from '../lib/api/envelope.ts'
import { parseJsonObject } from '../lib/api/input.ts'
import { DomainError } from '../lib/errors.ts'
import { authorize } from './auth.ts'
import type { Caller, GatewayContext, ManifestEntry } from './define.ts'
import { jsonResponse } from './respond.ts'
import type { Services } from './services.ts'
import { staticRoutes } from './static.ts'

export const maxBodyBytes = 16 * 1024

/** What @whatwg-node/server passes as the second argument (absent in tests). */
export interface ServerContext {
  req?: { socket?: { remoteAddress?: string } }
}

export interface GatewayRouter {
  fetch(request: Request, serverContext?: ServerContext): Promise<Response>
}

type RoutedRequest = Request & { params?: Record<string, string>; startedAt?: number }

export function versionOfPath(pathname: string): ApiVersion {
  return pathname === '/api/v1' || pathname.startsWith('/api/v1/') ? 'v1' : 'v2'
}

async function readBody(request: Request): Promise<Record<string, unknown>> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > maxBodyBytes) throw new DomainError('BODY_TOO_LARGE')
  if (!request.body) return {}
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBodyBytes) {
      await reader.cancel()
      throw new DomainError('BODY_TOO_LARGE')
    }
    chunks.push(value)
  }
  return parseJsonObject(Buffer.concat(chunks).toString('utf8'))
}

function callerOf(serverContext: ServerContext | undefined, request: Request): Caller {
  // Tests without a socket may name the client address with this header; a real socket wins.
  const ip = serverContext?.req?.socket?.remoteAddress ?? request.headers.get('x-test-client-ip') ?? '127.0.0.1'
  return { ip: ip.startsWith('::ffff:') ? ip.slice(7) : ip }
}

function invoke(entry: ManifestEntry, services: Services) {
  const version: ApiVersion = entry.path.startsWith('/api/v1') ? 'v1' : 'v2'
  return async (request: RoutedRequest, serverContext?: ServerContext): Promise<Response> => {
    const caller = callerOf(serverContext, request)
    await authorize(entry, request, services, caller)
    let bodyPromise: Promise<Record<string, unknown>> | undefined
    const ctx: GatewayContext = {
      version,
      config: entry,
      services,
      params: request.params ?? {},
      query: new URL(request.url).searchParams,
      caller,
      log: services.log,
      body: () => (bodyPromise ??= readBody(request)),
      ok: (payload = {}, options = {}) =>
        jsonResponse(
          okEnvelope(version, entry.code, payload, {
            outcome: options.outcome,
            status: options.status ?? entry.successStatus,
            message: options.message,
          }),
          options.headers,
        ),
    }
    const response = await entry.handler(request, ctx)
    if (!(response && typeof response === 'object' && 'status' in response)) {
      throw new Error(`${entry.file} returned no Response`)
    }
    return response
  }
}

export function buildRouter(manifest: ManifestEntry[], services: Services): GatewayRouter {
  const router = Router<RoutedRequest, [ServerContext | undefined]>({
    before: [
      (request) => {
        request.startedAt = performance.now()
        const declared = request.headers.get('content-length')
        if (declared !== null && Number(declared) > maxBodyBytes) throw new DomainError('BODY_TOO_LARGE')
      },
    ],
    catch: (error, request) => {
      const domainError = toDomainError(error)
      if (domainError.kind === 'INTERNAL') {
        services.log.error({ err: error, method: request.method, url: request.url }, 'unexpected error')
      }
      return jsonResponse(errorEnvelope(versionOfPath(new URL(request.url).pathname), domainError))
    },
    finally: [
      (response: Response, request) => {
        const pathname = new URL(request.url).pathname
        services.log.info(
          {
            method: request.method,
            path: pathname.slice(0, 256),
            status: response.status,
            ms: Math.round((performance.now() - (request.startedAt ?? 0)) * 100) / 100,
          },
          'request',
        )
        return response
      },
    ],
  })
  for (const entry of manifest) {
    const method = entry.method.toLowerCase() as 'get' | 'post' | 'delete'
    router[method](entry.path, invoke(entry, services))
  }
  // The board, /docs, /api/openapi.json and /assets/* (runtime/static.ts); other paths fall through.
  router.get('*', staticRoutes(manifest))
  router.all('*', () => {
    throw new DomainError('ROUTE_NOT_FOUND')
  })
  return { fetch: (request, serverContext) => router.fetch(request as RoutedRequest, serverContext) }
}
