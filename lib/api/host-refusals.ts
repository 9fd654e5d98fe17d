// The answers the HTTP host writes itself, before any route is known (runtime/host/http.ts):
// a request it cannot parse, one too slow, headers too large, and a connection it cannot take.
// No route and so no API version is known yet: the body is {status, message}, without the
// returnCode a v2 route gives (v1 bodies never carry one). The OpenAPI document lists each as a
// response of every operation (lib/openapi/host-responses.ts), from this one table.

export interface HostRefusal {
  status: number
  /** The status line's reason phrase. */
  reason: string
  message: string
  /** Why a client gets it (the document's description). */
  when: string
}

export const hostRefusals = {
  MalformedRequest: {
    status: 400,
    reason: 'Bad Request',
    message: 'Malformed HTTP request',
    when: 'The request line or a header could not be parsed (the connection is closed)',
  },
  RequestTimeout: {
    status: 408,
    reason: 'Request Timeout',
    message: 'Request timed out',
    when: 'The headers did not arrive within 10 s, or the whole request within 15 s (the connection is closed)',
  },
  HeadersTooLarge: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    message: 'Request headers are larger than 16 KiB',
    when: 'The header block is over 16 KiB (the connection is closed)',
  },
  TooManyConnections: {
    status: 503,
    reason: 'Service Unavailable',
    message: 'Too many connections',
    when: 'The gateway holds as many connections as it takes (in all, or from this address) and none could be shed for this one: it is answered and closed',
  },
} as const satisfies Record<string, HostRefusal>

export type HostRefusalName = keyof typeof hostRefusals

/** The body the host writes for a refusal. */
export function hostRefusalBody(name: HostRefusalName): { status: number; message: string } {
  const { status, message } = hostRefusals[name]
  return { status, message }
}
