// The routes outside the API manifest: the board (GET /), the docs page (GET /docs), the
// OpenAPI document (GET /api/openapi.json), the feed's AsyncAPI document (GET /api/asyncapi.json)
// and their files (GET /assets/*), all from web/.
// No build step: files are read from disk, cached by mtime and size, and revalidated by
// ETag, so an edited file shows on the next reload. Anything else falls through to the 404.
import { createHash } from 'node:crypto'
import { readFile, realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { readFileSync, type Stats } from 'node:fs'
import type { DocumentedRoute } from '../../lib/openapi/document.ts'
import type { GatewayConfig } from '../../lib/config.ts'
import { simulatedTables } from '../../lib/radio/simulated.ts'
import { BytesResponse } from './bytes-response.ts'

export const defaultWebRoot = fileURLToPath(new URL('../../web/', import.meta.url))

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
}

// The pages load only their own files and talk only to their own origin (HTTP and ws).
const pageHeaders = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
}

interface CachedFile {
  mtimeMs: number
  size: number
  body: Uint8Array<ArrayBuffer>
  etag: string
}

const etagOf = (body: Uint8Array) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`

/**
 * The file under root that a URL path names, or undefined when the path is malformed, leaves
 * root (`..`, encoded or not, or a symlink pointing out), names a hidden file, or has a type
 * we do not serve.
 */
export async function resolveAsset(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined
  const segments = decoded.split('/')
  if (segments.some((s) => s === '' || s.startsWith('.'))) return undefined
  if (!contentTypes[path.extname(decoded).toLowerCase()]) return undefined
  const rootReal = await realpath(root)
  let file: string
  try {
    file = await realpath(path.join(rootReal, ...segments))
  } catch {
    return undefined
  }
  return file.startsWith(rootReal + path.sep) ? file : undefined
}

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }
    return pkg.version ?? '0.0.0'
  } catch {
    return '0.0.0'
  }
}

function answer(request: Request, body: Uint8Array<ArrayBuffer>, etag: string, contentType: string, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    etag,
    // Revalidate every time: file names carry no hash, and a gateway update must show at once.
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    ...extra,
  }
  if (request.headers.get('if-none-match') === etag) {
    return new BytesResponse(304, headers, null)
  }
  return new BytesResponse(200, { 'content-type': contentType, ...headers }, body)
}

/** The numbers of the simulated restaurant a config runs (undefined with a Zigbee radio). */
export function simulatedRestaurantOf(config: GatewayConfig): StaticOptions['simulatedRestaurant'] {
  return config.radio.kind === 'simulated' ? { trackers: config.radio.trackers, tables: simulatedTables } : undefined
}

export interface StaticOptions {
  /** Folder with index.html, docs.html and the assets; web/ by default. */
  webRoot?: string
  /** The simulated restaurant's numbers, stated by the document's simulator bodies (lib/openapi/document.ts). */
  simulatedRestaurant?: { trackers: number; tables: number }
  /** The document served as /api/openapi.json; the gateway's by default (headquarters has its own). */
  openApiDocument?: () => Record<string, unknown>
}

/** An itty-router GET handler: a Response for the board's routes, undefined for any other path. */
export function staticRoutes(routes: DocumentedRoute[], options: StaticOptions = {}) {
  const root = options.webRoot ?? defaultWebRoot
  const cache = new Map<string, CachedFile>()
  let openapi: { body: Uint8Array<ArrayBuffer>; etag: string } | undefined
  let asyncapi: { body: Uint8Array<ArrayBuffer>; etag: string } | undefined

  async function readCached(file: string): Promise<CachedFile | undefined> {
    let info: Stats
    try {
      info = await stat(file)
    } catch {
      return undefined
    }
    if (!info.isFile()) return undefined
    const hit = cache.get(file)
    if (hit && hit.mtimeMs === info.mtimeMs && hit.size === info.size) return hit
    const body = new Uint8Array(await readFile(file))
    const entry = { mtimeMs: info.mtimeMs, size: info.size, body, etag: etagOf(body) }
    cache.set(file, entry)
    return entry
  }

  async function serveFile(request: Request, relative: string): Promise<Response | undefined> {
    const file = await resolveAsset(root, relative)
    if (!file) return undefined
    const cached = await readCached(file)
    if (!cached) return undefined
    const type = contentTypes[path.extname(file).toLowerCase()]!
    return answer(request, cached.body, cached.etag, type, type.startsWith('text/html') ? pageHeaders : {})
  }

  return async (request: Request): Promise<Response | undefined> => {
    const pathname = new URL(request.url).pathname
    if (pathname === '/' || pathname === '/index.html') return serveFile(request, 'index.html')
    if (pathname === '/docs' || pathname === '/docs/') return serveFile(request, 'docs.html')
    if (pathname === '/api/openapi.json') {
      // The manifest is fixed for the life of the process: build the document once. Its
      // builder is imported then, not with the host (a gateway that is never asked skips it).
      if (!openapi) {
        const gatewayDocument = async () =>
          (await import('../../lib/openapi/document.ts')).buildOpenApiDocument(routes, {
            version: packageVersion(),
            simulatedRestaurant: options.simulatedRestaurant,
          })
        const document = options.openApiDocument?.() ?? (await gatewayDocument())
        const body = new TextEncoder().encode(JSON.stringify(document))
        openapi = { body, etag: etagOf(body) }
      }
      return answer(request, openapi.body, openapi.etag, 'application/json; charset=utf-8')
    }
    // The WebSocket feed in AsyncAPI 3.0, made from the OpenAPI document (the gateway's only: HQ has its own).
    if (pathname === '/api/asyncapi.json' && !options.openApiDocument) {
      if (!asyncapi) {
        const { buildOpenApiDocument } = await import('../../lib/openapi/document.ts')
        const { buildAsyncApiDocument } = await import('../../lib/openapi/asyncapi-document.ts')
        const openApi = buildOpenApiDocument(routes, { version: packageVersion(), simulatedRestaurant: options.simulatedRestaurant })
        const body = new TextEncoder().encode(JSON.stringify(buildAsyncApiDocument(openApi as Parameters<typeof buildAsyncApiDocument>[0])))
        asyncapi = { body, etag: etagOf(body) }
      }
      return answer(request, asyncapi.body, asyncapi.etag, 'application/json; charset=utf-8')
    }
    if (pathname.startsWith('/assets/')) return serveFile(request, pathname.slice('/assets/'.length))
    return undefined
  }
}

type StaticHandler = (request: Request) => Promise<Response | undefined>

/** HEAD for the same routes: the GET answer's status and headers (with its length), no body. */
export function headRoutes(get: StaticHandler): StaticHandler {
  return async (request) => {
    const response = await get(request)
    if (!response) return undefined
    if (BytesResponse.is(response)) return new BytesResponse(response.status, response.wireHeaders, null)
    const headers = new Headers(response.headers)
    if (response.body !== null && !headers.has('content-length')) headers.set('content-length', String((await response.arrayBuffer()).byteLength))
    return new Response(null, { status: response.status, headers })
  }
}
