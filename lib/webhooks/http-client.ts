// The only way the gateway talks to webhook receivers: every connection goes through the
// target guard, redirects are answers (never followed), each request has a deadline, and
// at most maxResponseBytes of a response are read before the socket is dropped.
import { nodeHttp, nodeHttps } from '../kernel/node-http.ts'
import { portOf, type TargetGuard } from './target.ts'

export const maxResponseBytes = 64 * 1024

export interface SendRequest {
  method: 'HEAD' | 'POST'
  headers?: Record<string, string>
  body?: string
  timeoutMs: number
  /** Aborts the request early (the gateway is stopping). */
  signal?: AbortSignal
}

export interface SendResult {
  status: number
  /** The Location header of a 3xx, for the error message only. */
  location?: string
}

export class WebhookClient {
  readonly #guard: TargetGuard
  // Keep-alive: a receiver catching up on a backlog gets one POST after another on one socket.
  readonly #httpAgent = new nodeHttp.Agent({ keepAlive: true, maxSockets: 4, maxFreeSockets: 2, timeout: 30_000 })
  readonly #httpsAgent = new nodeHttps.Agent({ keepAlive: true, maxSockets: 4, maxFreeSockets: 2, timeout: 30_000 })

  constructor(guard: TargetGuard) {
    this.#guard = guard
  }

  /** Sends one request; rejects with TargetRefused, a network error or a timeout. */
  send(url: URL, request: SendRequest): Promise<SendResult> {
    this.#guard.checkLiteral(url)
    const secure = url.protocol === 'https:'
    const headers: Record<string, string> = { 'user-agent': 'tracker-gateway-webhooks', ...request.headers }
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body))
    return new Promise<SendResult>((resolve, reject) => {
      const deadline = AbortSignal.timeout(request.timeoutMs)
      const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline
      const req = (secure ? nodeHttps : nodeHttp).request(url, {
        method: request.method,
        headers,
        agent: secure ? this.#httpsAgent : this.#httpAgent,
        lookup: this.#guard.lookupFor(portOf(url)),
        timeout: request.timeoutMs,
        signal,
      })
      req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { code: 'ETIMEDOUT' })))
      req.on('error', (error) => reject(deadline.aborted ? Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { code: 'ETIMEDOUT' }) : error))
      req.on('response', (res) => {
        const result: SendResult = { status: res.statusCode ?? 0 }
        if (typeof res.headers.location === 'string') result.location = res.headers.location.slice(0, 200)
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          // The answer is known from the status; an endless body only costs a dropped socket.
          if (size > maxResponseBytes) {
            res.destroy()
            resolve(result)
          }
        })
        res.on('end', () => resolve(result))
        res.on('error', () => resolve(result))
        res.on('close', () => resolve(result))
      })
      req.end(request.body)
    })
  }

  close(): void {
    this.#httpAgent.destroy()
    this.#httpsAgent.destroy()
  }
}
