// Headquarters' API errors, in the gateway's v2 envelope ({status, returnCode, message}).
// The codes shared with the gateway mean the same there (-1, -2, -5, -37, -51, -99); -60 and up are HQ's alone (the gateway's own go up to -50).
export const hqErrors = {
  AUTH_MALFORMED: { status: 400, code: -1, message: 'Authorization header must be "Bearer <token>"' },
  AUTH_REJECTED: { status: 401, code: -2, message: 'HQ token missing or rejected' },
  ROUTE_NOT_FOUND: { status: 404, code: -5, message: 'Route not found' },
  SITE_NOT_FOUND: { status: 404, code: -60, message: 'No such site' },
  PERIOD_INVALID: { status: 400, code: -61, message: 'period must be today, week or month' },
  SITE_INVALID: { status: 400, code: -62, message: 'site must be a site id (1-64 characters, no "/", "+" or "#")' },
  DAY_INVALID: { status: 400, code: -63, message: 'from and to must be days (YYYY-MM-DD), from not after to, at most 366 days apart' },
  LIMIT_INVALID: { status: 400, code: -64, message: 'limit must be an integer from 1 to 10000' },
  FORMAT_INVALID: { status: 400, code: -65, message: 'format must be json or csv' },
  SCOPE_INSUFFICIENT: { status: 403, code: -51, message: 'This needs an HQ token of scope admin (gateway hq token create <name> --scope admin)' },
  RELEASE_REFUSED: { status: 422, code: -66, message: 'The release is refused: its signature does not verify with the release keys in hq.config.json' },
  RELEASE_INVALID: {
    status: 400,
    code: -67,
    message: 'Send the archive as the body and its detached signature (.sig, base64) in the Release-Signature header',
  },
  RELEASE_TOO_LARGE: { status: 413, code: -68, message: 'The archive is larger than releases.maxBytes' },
  RELEASE_NOT_FOUND: { status: 404, code: -69, message: 'No such release' },
  ROLLOUT_NOT_FOUND: { status: 404, code: -70, message: 'No such rollout' },
  ROLLOUT_ACTIVE: { status: 409, code: -71, message: 'Another rollout is running, paused or halted: cancel it or let it finish first' },
  ROLLOUT_INVALID: { status: 400, code: -72, message: 'The rollout is not valid' },
  ROLLOUT_TRANSITION: { status: 409, code: -73, message: 'The rollout is not in a state that allows this' },
  RANGE_INVALID: { status: 416, code: -74, message: 'The range is not satisfiable' },
  STORAGE_UNAVAILABLE: { status: 503, code: -37, message: 'PostgreSQL is unavailable' },
  INTERNAL: { status: 500, code: -99, message: 'Internal error' },
} as const

export type HqErrorKind = keyof typeof hqErrors

export class HqError extends Error {
  readonly kind: HqErrorKind
  /** `message`: the particular reason (why a release is refused), else the kind's own words. */
  constructor(kind: HqErrorKind, message?: string) {
    super(message ?? hqErrors[kind].message)
    this.kind = kind
    this.name = 'HqError'
  }
}

/** A site id as it appears in topics (the fleet's siteId rule). */
export function parseSiteId(value: string | null | undefined): string {
  if (!value || value.length > 64 || /[/+#\u0000]/.test(value)) throw new HqError('SITE_INVALID')
  return value
}

const dayPattern = /^\d{4}-\d{2}-\d{2}$/

/** A day (YYYY-MM-DD) that exists, else -63. */
export function parseDay(value: string): string {
  if (!dayPattern.test(value) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) throw new HqError('DAY_INVALID')
  return value
}

/** from..to, both days, from not after to, at most 366 days. */
export function parseDayRange(from: string, to: string): { from: string; to: string } {
  const range = { from: parseDay(from), to: parseDay(to) }
  const days = (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000
  if (days < 0 || days > 366) throw new HqError('DAY_INVALID')
  return range
}

export function parseLimit(value: string | null, fallback: number): number {
  if (value === null) return fallback
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 10_000) throw new HqError('LIMIT_INVALID')
  return Number(value)
}

/** json (the envelope, the default) or csv (an export). */
export function parseFormat(value: string | null): 'json' | 'csv' {
  if (value === null || value === 'json') return 'json'
  if (value === 'csv') return 'csv'
  throw new HqError('FORMAT_INVALID')
}
