// A request to a server over HTTPS that trusts only `ca` (no public CA; the name is checked),
// or over plain HTTP: what a test needs where global fetch cannot be given a CA (HQ with a
// certificate from a chain's private CA).
import http from 'node:http'
import https from 'node:https'

export interface CaAnswer {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
  /** The body as JSON (throws when it is not). */
  json(): any
}

export interface CaRequest {
  method?: string
  headers?: Record<string, string>
  body?: Buffer | string
  /** PEM: the only CA trusted (https only). */
  ca?: string | Buffer
}

export function caRequest(url: string, options: CaRequest = {}): Promise<CaAnswer> {
  const target = new URL(url)
  const secure = target.protocol === 'https:'
  return new Promise((resolve, reject) => {
    let answered = false
    const request = (secure ? https : http).request(target, {
      method: options.method ?? 'GET',
      headers: options.headers,
      agent: false,
      ...(secure ? { ca: options.ca } : {}),
    })
    // An answer sent before the whole body was taken (413) may be followed by a reset: the answer counts.
    request.on('error', (error) => {
      if (!answered) reject(error)
    })
    request.on('response', (response) => {
      answered = true
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const body = Buffer.concat(chunks)
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, json: () => JSON.parse(body.toString('utf8')) })
      })
      response.on('error', reject)
    })
    request.end(options.body)
  })
}
