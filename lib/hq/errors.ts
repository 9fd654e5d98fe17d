// Headquarters' API errors, in the gateway's v2 envelope ({status, returnCode, message}).
// The codes shared with the gateway mean the same there (-1, -2, -5, -37, -99); -60 and up are HQ's alone (the gateway's own go up to -50).
export const hqErrors = {
  AUTH_MALFORMED: { status: 400, code: -1, message: 'Authorization header must be "Bearer <token>"' },
  AUTH_REJECTED: { status: 401, code: -2, message: 'HQ token missing or rejected' },
  ROUTE_NOT_FOUND: { status: 404, code: -5, message: 'Route not found' },
  SITE_NOT_FOUND: { status: 404, code: -60, message: 'No such site' },
  PERIOD_INVALID: { status: 400, code: -61, message: 'period must be today or week' },
  SITE_INVALID: { status: 400, code: -62, message: 'site must be a site id (1-64 characters, no "/", "+" or "#")' },
  STORAGE_UNAVAILABLE: { status: 503, code: -37, message: 'PostgreSQL is unavailable' },
  INTERNAL: { status: 500, code: -99, message: 'Internal error' },
} as const

export type HqErrorKind = keyof typeof hqErrors

export class HqError extends Error {
  readonly kind: HqErrorKind
  constructor(kind: HqErrorKind) {
    super(hqErrors[kind].message)
    this.kind = kind
    this.name = 'HqError'
  }
}

/** A site id as it appears in topics (the fleet's siteId rule). */
export function parseSiteId(value: string | null | undefined): string {
  if (!value || value.length > 64 || /[/+#\u0000]/.test(value)) throw new HqError('SITE_INVALID')
  return value
}
