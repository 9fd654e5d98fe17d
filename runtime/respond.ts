// Turns envelopes into HTTP responses. Uses @whatwg-node/server's Response so the adapter
// can write it to the socket without converting between fetch implementations.
import { Response } from '@whatwg-node/server'
import type { Envelope } from '../lib/api/envelope.ts'

const jsonType = 'application/json; charset=utf-8'

export function jsonResponse(envelope: Envelope, extraHeaders?: Record<string, string>): Response {
  return new Response(JSON.stringify(envelope.body), {
    status: envelope.status,
    headers: { 'content-type': jsonType, 'cache-control': 'no-store', ...envelope.headers, ...extraHeaders },
  }) as unknown as Response
}
