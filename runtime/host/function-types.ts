// The contract between an endpoint function file and the runtime that hosts it: the
// per-request context a handler gets, the handler's type and the manifest's entries. With
// function-services.ts (what ctx.services offers) it is all a function file is written
// against: both import only types files (data shapes), never a service or the wiring
// (tests/architecture/function-contract.test.ts measures how far). The route description a
// file exports (FunctionConfig) is lib/api's (lib/api/function-config.ts), since the OpenAPI
// document and the input schemas read it too; it is re-exported here so a function file
// imports its types from one place.
//
// A function names its answer: `GatewayFunction<Answer, 'v1' | 'v2'>` makes ctx.ok() take
// exactly that payload (tsc refuses a missing, misspelt or extra field) and ctx.present give
// that version's records (lib/api/wire-types.ts). tests/functions/documented-answers.ts
// checks the answers of the routes the OpenAPI document describes against its schemas.
import type { Outcome } from '../../lib/kernel/errors.ts'
import type { ApiVersion, Presenter } from '../../lib/api/wire-types.ts'
import type { FunctionServices } from './function-services.ts'
import type { FunctionConfig } from '../../lib/api/function-config.ts'
import type { TokenIdentity } from '../../lib/tokens/types.ts'

export type { AuthStance, FunctionConfig, HttpMethod, JsonSchema, ParamDoc } from '../../lib/api/function-config.ts'
export type { ActiveOrderV1, ActiveOrderV2, IssuedTokenWire, OrderSummaryWire, TokenWire, TrackerView } from '../../lib/api/wire-types.ts'
export type { RawJson } from '../../lib/api/raw-json.ts'

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

/** An answer with no fields of its own (the envelope only): ctx.ok() or ctx.ok({}, options). */
export type NoFields = Record<never, never>

/** ctx.ok's arguments: the payload may be left out only when the answer has no fields. */
type OkArguments<Answer> = NoFields extends Answer ? [payload?: Answer, options?: OkOptions] : [payload: Answer, options?: OkOptions]

export interface GatewayContext<Answer extends object = object, V extends ApiVersion = ApiVersion> {
  /** The domain services a function may call: no store, radio, change log or event bus. */
  readonly services: FunctionServices
  /** Presenting in this route's version, at this request's now and the gateway's timezone. */
  readonly present: Presenter<V>
  readonly params: Record<string, string>
  readonly query: URLSearchParams
  readonly caller: Caller
  /** The JSON body as an object ({} when empty); -31 on malformed JSON, -35 when too large. */
  body(): Promise<Record<string, unknown>>
  /** The success envelope of this route's version and default code, with `payload`'s fields. */
  ok(...args: OkArguments<Answer>): Response
  /** A 200 answer that is not an envelope (the Prometheus text of /metrics), never cached. */
  text(body: string, contentType: string): Response
}

/** A function file's handler: `Answer` is its success payload, `V` its route's API version. */
export type GatewayFunction<Answer extends object, V extends ApiVersion> = (request: Request, ctx: GatewayContext<Answer, V>) => Promise<Response>

/**
 * A handler as the host holds it, whatever its answer and version: the router gives every
 * handler the same context (its ok() takes any payload, its presenter follows the route).
 */
// biome-ignore lint/suspicious/noExplicitAny: the host holds every function's handler, whatever its Answer and version
export type HostedFunction = GatewayFunction<any, any>

/** A function file's exports; `F` is the function's type (headquarters' functions get their own context). */
export interface FunctionModule<F = HostedFunction> {
  config: FunctionConfig
  default: F
}

export interface ManifestEntry<F = HostedFunction> extends FunctionConfig {
  /** Path of the function file relative to functions/, e.g. v2/activeorders.id.page.post.ts */
  file: string
  handler: F
}
