// A typed client of the gateway's v2 API over openapi-fetch: the paths, parameters and answers
// are the types generated from the served OpenAPI document (src/schema.d.ts, `npm run client:types`).
import createClient from 'openapi-fetch'
import type { paths } from './schema.d.ts'

export type { paths, components } from './schema.d.ts'

export interface GatewayOptions {
  /** e.g. http://192.168.1.20:8000 */
  baseUrl: string
  /** An access token (48 hex characters), of scope pos for the calls a POS makes. */
  token: string
  fetch?: typeof globalThis.fetch
}

/** The raw openapi-fetch client: every route of the document, typed. */
export function gatewayClient({ baseUrl, token, fetch }: GatewayOptions) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` }, ...(fetch ? { fetch } : {}) })
}

type Client = ReturnType<typeof gatewayClient>

/** Throws the gateway's error envelope (returnCode, message) when a call fails. */
function body<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new GatewayError(result.response.status, result.error)
  return result.data
}

export class GatewayError extends Error {
  readonly status: number
  readonly returnCode: number | undefined
  constructor(status: number, envelope: unknown) {
    const e = (envelope ?? {}) as { returnCode?: number; message?: string }
    super(`${status} ${e.returnCode ?? ''} ${e.message ?? ''}`.trim())
    this.status = status
    this.returnCode = e.returnCode
  }
}

/** The v2 calls a POS makes. */
export function posClient(options: GatewayOptions) {
  const api: Client = gatewayClient(options)
  return {
    api,
    create: async (name: number, orderType: 'ON_PREMISE' | 'TO_GO', locationName?: number) =>
      body(await api.POST('/api/v2/activeorders', { body: { name, orderType, ...(locationName === undefined ? {} : { locationName }) } })).activeorder,
    list: async () => body(await api.GET('/api/v2/activeorders')),
    page: async (name: number) => body(await api.POST('/api/v2/activeorders/{id}/page', { params: { path: { id: String(name) } } })).activeorder,
    clear: async (name: number) => body(await api.DELETE('/api/v2/activeorders/{id}', { params: { path: { id: String(name) } } })).activeorder,
    history: async (query: NonNullable<paths['/api/v2/orders']['get']['parameters']['query']> = {}) =>
      body(await api.GET('/api/v2/orders', { params: { query } })),
    statistics: async () => body(await api.GET('/api/v2/statistics')).statistics,
    /** Registers a webhook URL; the secret (for verifyWebhook) is in the first answer only. */
    registerWebhook: async (url: string) => body(await api.POST('/api/v2/register', { body: { http_client: url } })),
  }
}

export { verifyWebhook, type OrderWebhook } from './webhooks.ts'
export { orderFeed, type Feed, type FeedOptions, type OrderChange, type Snapshot } from './feed.ts'
