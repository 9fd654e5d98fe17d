// An answer of known bytes (a board file, the OpenAPI document, a 304) that the HTTP host
// writes straight to the socket, as it does JsonResponses. It is a fetch Response to anyone
// who looks (the reference host, tests); the real Response is built only if someone reads a
// member not kept here. Serving the board's files so never loads undici (lazy-delegate.ts).
import { delegateToReal } from '../wiring/lazy-delegate.ts'

export class BytesResponse {
  readonly status: number
  /** The body, or null (a 304, or a HEAD's answer). */
  readonly wireBody: Uint8Array<ArrayBuffer> | null
  readonly #headerObject: Record<string, string>
  #real: Response | undefined

  /** `headers` in lower case; a body's content-length is added here when not given. */
  constructor(status: number, headers: Record<string, string>, body: Uint8Array<ArrayBuffer> | null) {
    this.status = status
    this.wireBody = body
    this.#headerObject = body === null || headers['content-length'] !== undefined ? headers : { ...headers, 'content-length': String(body.byteLength) }
  }

  /** Whether a value is one of these, without walking its chain (see JsonResponse.is). */
  static is(value: unknown): value is BytesResponse {
    return typeof value === 'object' && value !== null && #headerObject in value
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300
  }

  /** The headers as the host writes them (a copy: the caller may add its own). */
  get wireHeaders(): Record<string, string> {
    return { ...this.#headerObject }
  }

  /** The real Response, built once: the escape hatch for every member not kept above. */
  toResponse(): Response {
    return (this.#real ??= new Response(this.wireBody, { status: this.status, headers: this.#headerObject }))
  }
}
export interface BytesResponse extends Response {}

delegateToReal(BytesResponse, 'Response', (response) => response.toResponse(), { getters: true })

/** A 200 text answer (Prometheus' exposition), never cached. */
export function textResponse(body: string, contentType: string): BytesResponse {
  return new BytesResponse(200, { 'content-type': contentType, 'cache-control': 'no-store' }, new TextEncoder().encode(body))
}
