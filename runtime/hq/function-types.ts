// The contract between a headquarters endpoint (functions/hq/*.ts) and the runtime that
// hosts it: what the gateway's functions get (runtime/host/function-types.ts), over HQ's
// services. The route description is the same FunctionConfig (lib/api/function-config.ts).
import type { FunctionModule, ManifestEntry, OkOptions } from '../host/function-types.ts'
import type { HqServices } from './services.ts'

import type { FunctionConfig as RouteConfig, JsonSchema } from '../../lib/api/function-config.ts'

/**
 * A headquarters route: the gateway's FunctionConfig (its scope, when given, is 'admin': only
 * admin HQ tokens pass) and the shape of its success payload for HQ's OpenAPI document.
 */
export type FunctionConfig = RouteConfig & { response?: { properties: Record<string, JsonSchema> } }

export interface HqCaller {
  ip: string
  /** Set by the auth gate on bearer-authenticated requests (an HQ token). */
  token?: { name: string; id: string; scope: 'read' | 'admin' }
}

export interface HqContext {
  readonly services: HqServices
  readonly params: Record<string, string>
  readonly query: URLSearchParams
  readonly caller: HqCaller
  /** The success envelope (v2's form) with this route's default code. */
  ok(payload?: Record<string, unknown>, options?: OkOptions): Response
  /** A 200 answer that is not an envelope (the Prometheus text of /api/hq/metrics), never cached. */
  text(body: string, contentType: string): Response
  /** The request body, or undefined when it is larger than `limit` bytes (the connection then closes). */
  body(limit: number): Promise<Buffer | undefined>
  /**
   * The request body handed to `sink` piece by piece as it arrives (the next piece once the
   * sink is done with the last): its size, or undefined once it is larger than `limit` (the
   * connection then closes). For bodies too large to hold in memory (a release archive).
   */
  streamBody(limit: number, sink: (chunk: Buffer) => Promise<void>): Promise<number | undefined>
  /** An answer of raw bytes (a release archive, whole or a range). */
  bytes(status: number, headers: Record<string, string>, body: Uint8Array<ArrayBuffer> | null): Response
}

export type HqFunction = (request: Request, ctx: HqContext) => Promise<Response>

export type HqFunctionModule = FunctionModule<HqFunction>

/** A manifest row; `file` is relative to functions/, e.g. hq/sites.site.orders.get.ts */
export type HqManifestEntry = ManifestEntry<HqFunction>
