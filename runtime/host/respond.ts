// Turns envelopes into HTTP responses. The answer is a fetch `Response` to everyone who
// looks at it (functions, tests, router hooks), but it keeps its JSON text, status and
// header object as they were given, so the HTTP host writes them straight to the socket.
// A real Response is only built if someone reads a member not kept here (body, clone, ...).
import type { Envelope } from '../../lib/api/envelope.ts'
import { type EncodedJson, encodeEnvelope } from '../../lib/api/raw-json.ts'
import { delegateToReal } from '../wiring/lazy-delegate.ts'

const jsonType = 'application/json; charset=utf-8'

export class JsonResponse {
  readonly status: number
  readonly #json: EncodedJson
  readonly #headerObject: Record<string, string>
  #headers: Headers | undefined
  #real: Response | undefined

  constructor(json: EncodedJson, status: number, headers: Record<string, string>) {
    this.#json = json
    this.status = status
    this.#headerObject = headers
  }

  /**
   * Whether a value is one of these, without walking its prototype chain: `instanceof` on
   * another stand-in would reach its lazy link to the real Response and load undici.
   */
  static is(value: unknown): value is JsonResponse {
    return typeof value === 'object' && value !== null && #json in value
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300
  }

  get statusText(): string {
    return ''
  }

  get headers(): Headers {
    return (this.#headers ??= new Headers(this.#headerObject))
  }

  text(): Promise<string> {
    return this.#real ? this.#real.text() : Promise.resolve(this.#json.text)
  }

  json(): Promise<unknown> {
    return this.#real ? this.#real.json() : Promise.resolve(JSON.parse(this.#json.text))
  }

  /** The real Response, built once: the escape hatch for every member not kept above. */
  toResponse(): Response {
    return (this.#real ??= new Response(this.#json.text, { status: this.status, headers: this.headers }))
  }

  /**
   * What the host writes: the text (and its bytes, when kept with a cached answer) and the
   * headers as given, or a copy of the Headers object when someone took it (it may have
   * changed since). The host never reads `Headers` itself: that would load undici.
   */
  wireParts(): { text: string; bytes: Buffer | undefined; headers: Record<string, string> } {
    return { text: this.#json.text, bytes: this.#json.bytes, headers: this.wireHeaders }
  }

  /** wireParts() one by one, for the host's hot path (no object per answer). */
  get wireJson(): EncodedJson {
    return this.#json
  }

  get wireHeaders(): Record<string, string> {
    return this.#headers ? Object.fromEntries(this.#headers) : this.#headerObject
  }
}
export interface JsonResponse extends Response {}

delegateToReal(JsonResponse, 'Response', (response) => response.toResponse(), { getters: true })

// Header names are case-insensitive; one spelling keeps a later value from duplicating an earlier one.
function addLowercased(target: Record<string, string>, source: Record<string, string>): void {
  for (const [name, value] of Object.entries(source)) target[name.toLowerCase()] = value
}

export function jsonResponse(envelope: Envelope, extraHeaders?: Record<string, string>): Response {
  const headers: Record<string, string> = { 'content-type': jsonType, 'cache-control': 'no-store' }
  if (envelope.headers) addLowercased(headers, envelope.headers)
  if (extraHeaders) addLowercased(headers, extraHeaders)
  return new JsonResponse(encodeEnvelope(envelope.body), envelope.status, headers)
}
