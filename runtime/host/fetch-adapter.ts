// The gateway's API packaged with @whatwg-node/server: one `createServerAdapter` over the same
// manifest, router and services the gateway runs. The adapter is a fetch handler
// (`adapter.fetch(request)`) and a node request listener (`adapter(req, res)`) at once, so any
// node:http server, Express or Fastify app, or fetch-based runtime can mount it
// (examples/mount-under-prefix.ts). It is also the reference host: tests/runtime/hosts.test.ts
// sends the contract and hostile-input requests through it and through the fast host
// (runtime/host/http.ts, the default on port 8000) and requires the same answers, byte for byte.
// It is not the default because its per-request Request/Response conversion costs several
// times the fast host's CPU (docs/decisions/0003-fast-http-host.md; `npm run bench` reports both).
import { STATUS_CODES } from 'node:http'
import { createServerAdapter } from '@whatwg-node/server'
import { errorEnvelope } from '../../lib/api/envelope.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import type { ManifestEntry } from './function-types.ts'
import { JsonResponse, jsonResponse } from './respond.ts'
import { buildRouter, type GatewayRouter, type ServerContext } from './router.ts'
import type { Services } from '../wiring/services.ts'

export interface GatewayAdapterOptions {
  /** The route table; default the committed functions/_manifest.gen.ts. */
  manifest?: ManifestEntry[]
  /** A router already built over the services (to share one with another host). */
  router?: GatewayRouter
  /** Serve the API under this path (e.g. /gateway): /gateway/api/v2 answers as /api/v2. */
  prefix?: string
}

/**
 * A JSON answer as a plain Response with the length and reason phrase the fast host sends
 * (whatwg-node would stream it chunked, with an empty reason phrase).
 */
function forWire(response: Response): Response {
  if (!JsonResponse.is(response)) return response
  const { text, bytes, headers } = response.wireParts()
  const body: BodyInit = bytes ? (bytes as unknown as Uint8Array<ArrayBuffer>) : text
  const out = new Headers(headers)
  out.set('content-length', String(bytes ? bytes.byteLength : Buffer.byteLength(text)))
  return new Response(body, { status: response.status, statusText: STATUS_CODES[response.status], headers: out })
}

/** The router behind a fetch adapter (no prefix). */
export function fetchAdapter(router: GatewayRouter) {
  return createServerAdapter<ServerContext>(async (request, serverContext) => forWire(await router.fetch(request, serverContext)))
}

export async function createGatewayAdapter(services: Services, options: GatewayAdapterOptions = {}) {
  const router = options.router ?? buildRouter(options.manifest ?? (await import('../../functions/_manifest.gen.ts')).manifest, services)
  const prefix = options.prefix?.replace(/\/+$/, '')
  if (!prefix) return fetchAdapter(router)
  if (!/^\/[A-Za-z0-9._~/-]+$/.test(prefix)) throw new Error(`prefix "${options.prefix}" must be a plain path such as /gateway`)
  return createServerAdapter<ServerContext>(async (request, serverContext) => {
    const url = new URL(request.url)
    if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
      return forWire(jsonResponse(errorEnvelope('v2', new DomainError('ROUTE_NOT_FOUND'))))
    }
    url.pathname = url.pathname.slice(prefix.length) || '/'
    const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers: request.headers, signal: request.signal }
    if (request.body) Object.assign(init, { body: request.body, duplex: 'half' })
    return forWire(await router.fetch(new Request(url, init), serverContext))
  })
}
