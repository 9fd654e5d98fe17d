// A fetch `Request` over node's IncomingMessage that costs almost nothing until it is used.
// Building a real Request (undici or @whatwg-node's ponyfill) per call was most of the
// host's time (docs/decisions/0003-fast-http-host.md), yet the router and
// the auth gate only read the method, the URL and a header or two. So those are plain
// fields; every other Request member builds the real Request on first use and answers
// from it, so code written against the fetch API keeps working unchanged.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { DomainError } from '../../lib/kernel/errors.ts'
import { delegateToReal } from '../wiring/lazy-delegate.ts'

type RawHeaders = IncomingMessage['headers']

// A Host header is only trusted as the URL's authority when it looks like one.
const plausibleHost = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/

/**
 * Header names in lower case, remembered: the names asked for are the code's own few
 * constants, nearly all lower case already, and lowering one on every get() was a visible
 * cost per request (issue 30). Bounded, in case a caller asks for names it was sent.
 */
const lowerNames = new Map<string, string>()

function lowerName(name: string): string {
  let lower = lowerNames.get(name)
  if (lower === undefined) {
    lower = name.toLowerCase()
    if (lowerNames.size >= 256) lowerNames.clear()
    lowerNames.set(name, lower)
  }
  return lower
}

/** Headers over node's already-parsed header object; anything beyond get/has copies them once. */
export class NodeHeaders {
  readonly #raw: RawHeaders
  #real: Headers | undefined

  constructor(raw: RawHeaders) {
    this.#raw = raw
  }

  get(name: string): string | null {
    if (this.#real) return this.#real.get(name)
    const value = this.#raw[lowerName(name)]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(', ') : value
  }

  has(name: string): boolean {
    return this.#real ? this.#real.has(name) : this.#raw[lowerName(name)] !== undefined
  }

  /** The equivalent real Headers; later reads and writes go to it. */
  materialize(): Headers {
    if (!this.#real) {
      const real = new Headers()
      for (const [name, value] of Object.entries(this.#raw)) {
        if (Array.isArray(value)) for (const item of value) real.append(name, item)
        else if (value !== undefined) real.append(name, value)
      }
      this.#real = real
    }
    return this.#real
  }
}
export interface NodeHeaders extends Headers {}

export class NodeRequest {
  readonly method: string
  /** The path part of the request target, as sent (no query). */
  readonly pathname: string
  /** The query part including "?", or "". */
  readonly search: string
  readonly raw: IncomingMessage
  /** The route's path parameters, set by the dispatcher (declared so the shape is stable). */
  params: Record<string, string> | undefined = undefined
  /** The manifest route that answered, set by the router for the request count (declared so the shape is stable). */
  route: string | undefined = undefined
  readonly #response: ServerResponse
  #headers: NodeHeaders | undefined
  #real: Request | undefined
  #signal: AbortController | undefined
  #bodyTaken = false
  #url: string | undefined

  constructor(raw: IncomingMessage, response: ServerResponse) {
    this.raw = raw
    this.#response = response
    this.method = raw.method ?? 'GET'
    let target = raw.url ?? '/'
    if (target[0] !== '/') target = originFormOf(target)
    const q = target.indexOf('?')
    this.pathname = q < 0 ? target : target.slice(0, q)
    this.search = q < 0 ? '' : target.slice(q)
  }

  /** The absolute URL, built when asked for: the router and the usual routes never need it. */
  get url(): string {
    if (this.#url === undefined) {
      const host = this.raw.headers.host
      this.#url = `http://${host !== undefined && plausibleHost.test(host) ? host : 'localhost'}${this.pathname}${this.search}`
    }
    return this.#url
  }

  get headers(): NodeHeaders {
    return (this.#headers ??= new NodeHeaders(this.raw.headers))
  }

  /** Aborted when the client goes away before the answer was sent. */
  get signal(): AbortSignal {
    if (!this.#signal) {
      const controller = new AbortController()
      this.#response.once('close', () => {
        if (!this.#response.writableFinished) controller.abort()
      })
      this.#signal = controller
    }
    return this.#signal.signal
  }

  get bodyUsed(): boolean {
    return this.#bodyTaken || (this.#real?.bodyUsed ?? false)
  }

  /**
   * The body as bytes, or undefined as soon as it grows past `limit` (then the connection
   * closes after the answer instead of draining an unwanted upload).
   */
  readBody(limit: number): Promise<Buffer | undefined> {
    if (this.#bodyTaken || this.#real) return Promise.reject(new TypeError('Body has already been used'))
    this.#bodyTaken = true
    return readLimited(this.raw, limit).then((body) => {
      if (body === undefined && !this.#response.headersSent) this.#response.setHeader('connection', 'close')
      return body
    })
  }

  /**
   * The body handed to `sink` piece by piece as it arrives, the next piece only once the
   * sink is done with the last (a slow sink slows the client; nothing piles up in memory).
   * Resolves with its size, or undefined as soon as it grows past `limit` (then, as with
   * readBody, the connection closes after the answer).
   */
  streamBody(limit: number, sink: (chunk: Buffer) => Promise<void>): Promise<number | undefined> {
    if (this.#bodyTaken || this.#real) return Promise.reject(new TypeError('Body has already been used'))
    this.#bodyTaken = true
    return streamLimited(this.raw, limit, sink).then((size) => {
      if (size === undefined && !this.#response.headersSent) this.#response.setHeader('connection', 'close')
      return size
    })
  }

  /** The real Request, built once: the escape hatch for every member not kept above. */
  toRequest(): Request {
    if (!this.#real) {
      if (this.#bodyTaken) throw new TypeError('Body has already been used')
      const hasBody = this.method !== 'GET' && this.method !== 'HEAD'
      this.#real = new Request(this.url, {
        method: this.method,
        headers: this.headers.materialize(),
        body: hasBody ? (Readable.toWeb(this.raw) as ReadableStream<Uint8Array>) : undefined,
        signal: this.signal,
        duplex: 'half',
      } as RequestInit)
    }
    return this.#real
  }
}
export interface NodeRequest extends Omit<Request, 'headers'> {}

// Every other Request member (body, json(), text(), clone(), ...) answers from the real one.
delegateToReal(NodeRequest, 'Request', (request) => request.toRequest(), { getters: true })

// Same for Headers: get/has are native above, the rest goes through the copied real Headers.
delegateToReal(NodeHeaders, 'Headers', (headers) => headers.materialize(), { getters: false })

/** "http://host/x?y" (absolute-form) → "/x?y"; anything unparsable → "/" (then a 404). */
function originFormOf(target: string): string {
  try {
    const url = new URL(target)
    return url.pathname + url.search
  } catch {
    return '/'
  }
}

function readLimited(stream: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = () => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', onError)
      stream.off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        done()
        stream.pause()
        resolve(undefined)
      } else chunks.push(chunk)
    }
    const onEnd = () => {
      done()
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
    }
    const onError = () => {
      done()
      reject(new DomainError('JSON_INVALID', 'the request body ended early'))
    }
    const onClose = () => {
      if (!stream.complete) onError()
    }
    stream.on('data', onData)
    stream.on('end', onEnd)
    stream.on('error', onError)
    stream.on('close', onClose)
  })
}

function streamLimited(stream: IncomingMessage, limit: number, sink: (chunk: Buffer) => Promise<void>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let size = 0
    let settled = false
    // The sink's work, in order; the stream is paused while it runs.
    let sinking: Promise<void> = Promise.resolve()
    const settle = (end: () => void) => {
      if (settled) return
      settled = true
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', onError)
      stream.off('close', onClose)
      // Settled once the sink is done with what it was given (its caller may close it next).
      sinking.catch(() => undefined).then(end)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      stream.pause()
      if (size > limit) return settle(() => resolve(undefined))
      sinking = sinking.then(() => sink(chunk))
      sinking.then(
        () => {
          if (!settled) stream.resume()
        },
        (error: unknown) => settle(() => reject(error)),
      )
    }
    const onEnd = () => settle(() => resolve(size))
    const onError = () => settle(() => reject(new DomainError('JSON_INVALID', 'the request body ended early')))
    const onClose = () => {
      if (!stream.complete) onError()
    }
    stream.on('data', onData)
    stream.on('end', onEnd)
    stream.on('error', onError)
    stream.on('close', onClose)
  })
}
