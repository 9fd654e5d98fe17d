// The contract between an endpoint function file and the runtime that hosts it: the
// per-request context a handler gets, the handler's type and the manifest's entries. The
// route description a file exports (FunctionConfig) is lib/api's (lib/api/function-config.ts),
// since the OpenAPI document and the input schemas read it too; it is re-exported here so a
// function file imports its types from one place.
import type { Outcome } from '../../lib/kernel/errors.ts'
import type { Presenter } from '../../lib/api/request-presenter.ts'
import type { FunctionServices } from './function-services.ts'
import type { FunctionConfig } from '../../lib/api/function-config.ts'
import type { TokenIdentity } from '../../lib/tokens/service.ts'

export type { AuthStance, FunctionConfig, HttpMethod, JsonSchema, ParamDoc } from '../../lib/api/function-config.ts'

export interface Caller {
  ip: string
  /** Set by the auth gate on token-authenticated requests (its scope already checked). */
  token?: TokenIdentity
}

export interface OkOptions {
  outcome?: Outcome
  status?: 200 | 201
  message?: string
  headers?: Record<string, string>
}

export interface GatewayContext {
  /** The domain services a function may call: no store, radio, change log or event bus. */
  readonly services: FunctionServices
  /** Presenting in this route's version, at this request's now and the gateway's timezone. */
  readonly present: Presenter
  readonly params: Record<string, string>
  readonly query: URLSearchParams
  readonly caller: Caller
  /** The JSON body as an object ({} when empty); -31 on malformed JSON, -35 when too large. */
  body(): Promise<Record<string, unknown>>
  /** The success envelope of this route's version and default code. */
  ok(payload?: Record<string, unknown>, options?: OkOptions): Response
  /** A 200 answer that is not an envelope (the Prometheus text of /metrics), never cached. */
  text(body: string, contentType: string): Response
}

export type GatewayFunction = (request: Request, ctx: GatewayContext) => Promise<Response>

/** A function file's exports; `F` is the function's type (headquarters' functions get their own context). */
export interface FunctionModule<F = GatewayFunction> {
  config: FunctionConfig
  default: F
}

export interface ManifestEntry<F = GatewayFunction> extends FunctionConfig {
  /** Path of the function file relative to functions/, e.g. v2/activeorders.id.page.post.ts */
  file: string
  handler: F
}
