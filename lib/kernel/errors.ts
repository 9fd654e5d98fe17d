// Domain errors and outcomes. Services throw DomainError(kind); lib/api/envelope.ts maps each
// kind once per API version. Both tables are Record<ErrorKind, ...>, so adding a kind here
// without mapping it is a compile error.

export const errorKinds = [
  'AUTH_MALFORMED',
  'AUTH_REJECTED',
  'BUTTON_WINDOW_CLOSED',
  'TOKEN_NAME_INVALID',
  'TOKEN_NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'ORDER_NOT_FOUND',
  'ORDER_REF_INVALID',
  'ORDER_NAME_MISSING',
  'ORDER_NAME_INVALID',
  'LOCATION_INVALID',
  'ORDER_TYPE_MISSING',
  'ORDER_TYPE_INVALID',
  'TRACKER_UNKNOWN',
  'NO_TRACKER_TO_PAGE',
  'NO_TRACKER_TO_CANCEL',
  'TRACKING_INVALID',
  'REFRESH_INVALID',
  'PAIRING_TIMEOUT_INVALID',
  'DEVICE_CODE_MALFORMED',
  'DEVICE_CODE_MISSING',
  'DEVICE_CODE_REFUSED',
  'SETTINGS_KEY_UNKNOWN',
  'SETTINGS_VALUE_INVALID',
  'TARGET_TIME_INVALID',
  'LIMIT_INVALID',
  'OFFSET_INVALID',
  'DATE_INVALID',
  'LIMIT_TOO_LARGE',
  'AS_OF_INVALID',
  'UUID_INVALID',
  'CALLBACK_MISSING',
  'CALLBACK_INVALID',
  'CALLBACK_UNREACHABLE',
  'CALLBACK_NOT_REGISTERED',
  'JSON_INVALID',
  'WS_AUTH_TIMEOUT',
  'CHECK_TIMEOUT_INVALID',
  'CHECK_TIMEOUT_OUT_OF_RANGE',
  'BODY_TOO_LARGE',
  'RATE_LIMITED',
  'STORAGE_UNAVAILABLE',
  'SIM_INPUT_INVALID',
  'CROSS_SITE_REFUSED',
  'CONTENT_TYPE_UNSUPPORTED',
  'HOST_UNKNOWN',
  'SCREEN_CODE_UNKNOWN',
  'SCREEN_REQUEST_NOT_FOUND',
  'SCREEN_CODES_EXHAUSTED',
  'CHANNEL_MOVE_REFUSED',
  'RADIO_UNAVAILABLE',
  'RADIO_DEVICE_NOT_FOUND',
  'FORCE_INVALID',
  'PATH_NOT_CANONICAL',
  'TOKEN_LIMIT_REACHED',
  'SCOPE_DENIED',
  'SCOPE_INVALID',
  'INTERNAL',
] as const

export type ErrorKind = (typeof errorKinds)[number]

export class DomainError extends Error {
  readonly kind: ErrorKind
  /** Extra words for the message, e.g. the offending settings key or query parameter. */
  readonly detail: string | undefined
  /** Seconds a client should wait (RATE_LIMITED). */
  readonly retryAfter: number | undefined

  constructor(kind: ErrorKind, detail?: string, options?: { retryAfter?: number; cause?: unknown }) {
    super(detail ? `${kind}: ${detail}` : kind, { cause: options?.cause })
    this.name = 'DomainError'
    this.kind = kind
    this.detail = detail
    this.retryAfter = options?.retryAfter
  }
}

/** Non-error results that v2 reports with a specific returnCode above 1000. */
export const outcomeCodes = {
  TOKEN_DELETED: 1001,
  PAGING_CANCELLED: 1002,
  NOTHING_TO_CANCEL: 1003,
  SETTINGS_CHANGED: 1004,
  CLIENT_REGISTERED: 1005,
  REPEATERS_CLEARED: 1006,
  TRACKERS_CLEARED: 1007,
  ALREADY_ACTIVATED: 1008,
  ALREADY_STARTED: 1009,
  ALREADY_LOCATED: 1010,
  ACTIVATED: 1011,
  PAIRING_OPEN: 1012,
  PAIRING_CLOSED: 1013,
} as const

export type Outcome = keyof typeof outcomeCodes
