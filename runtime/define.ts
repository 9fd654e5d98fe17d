// The contract between an endpoint function file and the runtime that hosts it.
import type { ApiVersion } from '../lib/api/envelope.ts'
import type { Outcome } from '../lib/kernel/errors.ts'
import type { Logger } from '../lib/kernel/log.ts'
import type { Presenter } from '../lib/api/presenter.ts'
import type { FunctionServices } from './function-services.ts'

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
}

export interface FunctionConfig {
  method: HttpMethod
  /** itty-router path, e.g. /api/v2/activeorders/:id/page */
  path: string
  auth: AuthStance
  /** v2 default returnCode of the path (decisions §1); absent on v1. */
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
}

export interface Caller {
  ip: string
  /** Set by the auth gate on bearer-authenticated requests. */
  token?: { name: string; id: string }
}

export interface OkOptions {
  outcome?: Outcome
  status?: 200 | 201
  message?: string
  headers?: Record<string, string>
}

export interface GatewayContext {
  readonly version: ApiVersion
  readonly config: FunctionConfig
  /** The domain services a function may call: no store, radio, change log or event bus. */
  readonly services: FunctionServices
  /** Presenting in this route's version, at this request's now and the gateway's timezone. */
  readonly present: Presenter
  readonly params: Record<string, string>
  readonly query: URLSearchParams
  readonly caller: Caller
  readonly log: Logger
  /** The JSON body as an object ({} when empty); -31 on malformed JSON, -35 when too large. */
  body(): Promise<Record<string, unknown>>
  /** The success envelope of this route's version and default code. */
  ok(payload?: Record<string, unknown>, options?: OkOptions): Response
}

export type GatewayFunction = (request: Request, ctx: GatewayContext) => Promise<Response>

export interface FunctionModule {
  config: FunctionConfig
  default: GatewayFunction
}

export interface ManifestEntry extends FunctionConfig {
  /** Path of the function file relative to functions/, e.g. v2/activeorders.id.page.post.ts */
  file: string
  handler: GatewayFunction
}
