// What a function file says about its route (its exported `config`): method, path, auth,
// default code, documentation of query and body. The router, the manifest check, the
// OpenAPI document and the input schemas all read it, so it lives in the api layer.
import type { Outcome } from '../kernel/errors.ts'
import type { Scope } from '../tokens/scopes.ts'

export type HttpMethod = 'GET' | 'POST' | 'DELETE'

/**
 * How a route is protected. 'bearer': a valid v2 access token. 'button': open, but the
 * service checks the button window. 'none': open. v1 routes are 'none' (Basic auth is a
 * setting applied by the router).
 */
export type AuthStance = 'none' | 'bearer' | 'button'

/** A JSON Schema fragment used for the OpenAPI document. */
export type JsonSchema = Record<string, unknown>

export interface ParamDoc {
  description: string
  schema: JsonSchema
  required?: boolean
  /** A parameter that asks for more than the route's scope (documented as x-scope; the function checks it). */
  scope?: Scope
}

export interface FunctionConfig {
  method: HttpMethod
  /** itty-router path, e.g. /api/v2/activeorders/:id/page */
  path: string
  auth: AuthStance
  /**
   * The least token scope the route needs (docs/api.md, "Scopes"), checked by the host before
   * the handler runs. Every route that can take a token names one: v2 'bearer' routes, and
   * v1 routes but its root (Basic auth when v1.basicAuth is on); open routes name none.
   */
  scope?: Scope
  /** v2 default returnCode of the path (docs/api.md, "Return codes of each path"); absent on v1. */
  code?: number
  summary: string
  query?: Record<string, ParamDoc>
  body?: JsonSchema
  /** Success returnCodes beyond the default (v2), for documentation. */
  outcomes?: Outcome[]
  /** Error kinds this endpoint can answer with, for documentation and contract tests. */
  errors?: string[]
  /** HTTP status of success when not 200. */
  successStatus?: 200 | 201
  /** The success answer's media type when it is not the JSON envelope (GET /api/v2/metrics: Prometheus' text). */
  contentType?: string
}

/** Whether a route can be called with a token, and so must name the scope it needs. */
export function takesToken(config: Pick<FunctionConfig, 'auth' | 'path'>): boolean {
  if (config.path.startsWith('/api/v1')) return config.path !== '/api/v1'
  return config.auth === 'bearer'
}
