// The v1 and v2 envelopes. Every HTTP answer the gateway gives is built here, so status,
// returnCode and message stay consistent across functions and the runtime's own errors.
import { DomainError, type ErrorKind, type Outcome, outcomeCodes } from '../kernel/errors.ts'
import type { ApiVersion } from './wire-types.ts'

export type { ApiVersion } from './wire-types.ts'

interface ErrorMapping {
  status: number
  code: number
  message: (detail?: string) => string
}

const withDetail = (text: string) => (detail?: string) => (detail ? `${text}: ${detail}` : text)
const fixed = (text: string) => () => text
/** A lock-out: the detail says when to retry ("retry in 9 min 58 s"), else "retry later". */
const untilRetry = (text: string) => (detail?: string) => `${text}; ${detail ?? 'retry later'}`

/** v2: HTTP status, returnCode and message per kind (glossary codes; -35.. are ours). */
export const v2Errors: Record<ErrorKind, ErrorMapping> = {
  AUTH_MALFORMED: { status: 400, code: -1, message: fixed('Authorization header must be "Bearer <token>"') },
  AUTH_REJECTED: { status: 401, code: -2, message: fixed('Access token missing or rejected') },
  BUTTON_WINDOW_CLOSED: { status: 403, code: -3, message: fixed('Press the gateway button first: the token window is closed') },
  TOKEN_NAME_INVALID: { status: 400, code: -4, message: fixed('Invalid access token name: use 1-64 letters, digits, hyphens or underscores') },
  TOKEN_NOT_FOUND: { status: 404, code: -6, message: withDetail('Access token not found') },
  ROUTE_NOT_FOUND: { status: 404, code: -5, message: fixed('Route not found') },
  ORDER_NOT_FOUND: { status: 404, code: -6, message: fixed('Order not found') },
  ORDER_REF_INVALID: { status: 400, code: -7, message: fixed('Order identifier must be a positive integer or a UUID') },
  ORDER_NAME_MISSING: { status: 400, code: -8, message: fixed('Order name is missing') },
  ORDER_NAME_INVALID: { status: 400, code: -9, message: fixed('Order name must be a positive integer') },
  LOCATION_INVALID: { status: 400, code: -10, message: fixed('Location name must be a positive integer') },
  ORDER_TYPE_MISSING: { status: 400, code: -11, message: fixed('Order type is missing (must be TO_GO or ON_PREMISES)') },
  ORDER_TYPE_INVALID: { status: 400, code: -12, message: fixed('Order type must be TO_GO or ON_PREMISES') },
  // v2 creates orders without a tracker, so this kind only reaches clients through v1.
  TRACKER_UNKNOWN: { status: 400, code: -9, message: fixed('No tracker with this number has been started on a starter unit') },
  NO_TRACKER_TO_PAGE: { status: 404, code: -13, message: fixed('Order has no tracker: cannot page') },
  NO_TRACKER_TO_CANCEL: { status: 404, code: -14, message: fixed('Order has no tracker: cannot cancel paging') },
  TRACKING_INVALID: { status: 400, code: -31, message: fixed('tracking must be true or false') },
  REFRESH_INVALID: { status: 400, code: -15, message: fixed('refresh must be true or false') },
  PAIRING_TIMEOUT_INVALID: { status: 400, code: -16, message: fixed('timeout must be an integer from 0 to 254') },
  DEVICE_CODE_MALFORMED: { status: 400, code: -17, message: fixed('Device code must look like NNN-NNNN-NNN') },
  DEVICE_CODE_MISSING: { status: 400, code: -18, message: fixed('Device code is missing') },
  DEVICE_CODE_REFUSED: { status: 400, code: -19, message: withDetail('Device code refused by the cloud service') },
  SETTINGS_KEY_UNKNOWN: { status: 400, code: -20, message: withDetail('Invalid settings key') },
  SETTINGS_VALUE_INVALID: { status: 400, code: -21, message: withDetail('Invalid settings value') },
  TARGET_TIME_INVALID: { status: 400, code: -22, message: fixed('target_time must be a positive number of seconds') },
  LIMIT_INVALID: { status: 400, code: -23, message: fixed('limit must be a positive integer') },
  OFFSET_INVALID: { status: 400, code: -24, message: fixed('offset must be an integer of 0 or more') },
  DATE_INVALID: { status: 400, code: -25, message: withDetail('Malformed date filter') },
  LIMIT_TOO_LARGE: { status: 400, code: -26, message: fixed('limit must not be above 100') },
  // Our extension for stable paging (docs/api.md, History): part of the page position, like offset.
  AS_OF_INVALID: { status: 400, code: -24, message: fixed('as_of must be the asOf of an earlier page (an integer of 0 or more)') },
  UUID_INVALID: { status: 400, code: -27, message: fixed('Order UUID is malformed') },
  CALLBACK_MISSING: { status: 400, code: -28, message: fixed('Callback URL (http_client) is missing') },
  CALLBACK_INVALID: { status: 400, code: -29, message: withDetail('Callback URL is malformed or not allowed') },
  CALLBACK_UNREACHABLE: { status: 404, code: -30, message: withDetail('Callback server does not answer a HEAD request') },
  CALLBACK_NOT_REGISTERED: { status: 404, code: -30, message: fixed('No such callback URL is registered') },
  JSON_INVALID: { status: 400, code: -31, message: withDetail('Invalid JSON payload') },
  WS_AUTH_TIMEOUT: { status: 408, code: -32, message: fixed('Authentication timeout') },
  CHECK_TIMEOUT_INVALID: { status: 400, code: -33, message: fixed('timeout must be an integer') },
  CHECK_TIMEOUT_OUT_OF_RANGE: { status: 400, code: -34, message: fixed('timeout must be from 0 to 254') },
  BODY_TOO_LARGE: { status: 413, code: -35, message: fixed('Request body is larger than 16 KiB') },
  RATE_LIMITED: { status: 429, code: -36, message: untilRetry('Too many failed authentication attempts') },
  // Ours (fair shares, issue 41; docs/api.md "Fair shares"): what one LAN address or one token may hold.
  CALLBACK_LIMIT_REACHED: { status: 409, code: -52, message: withDetail('Too many callback URLs') },
  SHARE_EXCEEDED: { status: 429, code: -53, message: withDetail('This client already holds its share; retry later') },
  STORAGE_UNAVAILABLE: { status: 503, code: -37, message: fixed('Storage is unavailable; nothing was changed') },
  // Ours (extension: simulator): a tracker or table the virtual restaurant does not have.
  SIM_INPUT_INVALID: { status: 400, code: -38, message: withDetail('Invalid simulator input') },
  // Ours (docs/api.md, "The LAN and browsers"): a web page may not use the gateway.
  CROSS_SITE_REFUSED: { status: 403, code: -39, message: fixed('Cross-site request refused') },
  CONTENT_TYPE_UNSUPPORTED: { status: 415, code: -40, message: fixed('Content type must be application/json') },
  HOST_UNKNOWN: { status: 421, code: -41, message: fixed('Unknown host') },
  // Ours (signing a screen in with a code, docs/api.md "Screens"): unknown, expired or used code.
  SCREEN_CODE_UNKNOWN: { status: 404, code: -42, message: fixed('No screen is waiting with this code: codes expire after 10 minutes') },
  SCREEN_REQUEST_NOT_FOUND: { status: 404, code: -43, message: fixed('Sign-in request not found: it expired or its token was collected') },
  SCREEN_CODES_EXHAUSTED: { status: 429, code: -44, message: untilRetry('Too many screens are waiting for a code') },
  // Ours (radio upkeep, docs/api.md "Radio upkeep"): the zigbeePreset would move a network with
  // paired devices (add ?force=true), the radio cannot do this, or has no such device.
  CHANNEL_MOVE_REFUSED: { status: 409, code: -45, message: withDetail('Channel change refused') },
  RADIO_UNAVAILABLE: { status: 503, code: -46, message: withDetail('The Zigbee radio cannot do this now') },
  RADIO_DEVICE_NOT_FOUND: { status: 404, code: -47, message: withDetail('No such device in the Zigbee network') },
  FORCE_INVALID: { status: 400, code: -48, message: fixed('force must be true or false') },
  // Extensions (issue 25): a path the URL parser would restructure; the cap on access tokens.
  PATH_NOT_CANONICAL: { status: 400, code: -49, message: fixed('Path must not contain "." or ".." segments, "//" or "\\"') },
  TOKEN_LIMIT_REACHED: { status: 409, code: -50, message: withDetail('Too many access tokens: revoke one first') },
  // Ours (issue 41, docs/api.md "Scopes"): the token is valid but its scope does not cover the
  // route (or would give out more than it holds); a scope that is not one of ours.
  SCOPE_DENIED: { status: 403, code: -51, message: withDetail("The access token's scope does not allow this") },
  SCOPE_INVALID: { status: 400, code: -54, message: withDetail('Unknown scope: use read, screen, pos or admin') },
  INTERNAL: { status: 500, code: -99, message: fixed('Internal error') },
}

/** v1: only the HTTP status differs from v2 for a few kinds; there is no returnCode. */
const v1StatusOverrides: Partial<Record<ErrorKind, number>> = {
  LIMIT_TOO_LARGE: 412,
}

/** v1 messages where the v1 examples word things differently. */
const v1Messages: Partial<Record<ErrorKind, string>> = {
  AUTH_MALFORMED: 'Authorization header must be "Basic <base64 of token:>"',
  TRACKER_UNKNOWN: 'The tracker has never been started with a starter unit',
  ORDER_NOT_FOUND: 'The order is inactive or does not exist',
  CALLBACK_UNREACHABLE: 'The callback server cannot be reached',
}

export interface Envelope {
  status: number
  body: Record<string, unknown>
  headers?: Record<string, string>
}

export function errorEnvelope(version: ApiVersion, error: DomainError): Envelope {
  const mapping = v2Errors[error.kind]
  const message = (version === 'v1' && v1Messages[error.kind]) || mapping.message(error.detail)
  const status = version === 'v1' ? (v1StatusOverrides[error.kind] ?? mapping.status) : mapping.status
  const body: Record<string, unknown> = version === 'v1' ? { status, message } : { status, returnCode: mapping.code, message }
  const headers = error.retryAfter !== undefined ? { 'retry-after': String(error.retryAfter) } : undefined
  return { status, body, headers }
}

/**
 * A success envelope. v2 carries the path's default code unless an outcome gives a more
 * specific one; v1 never carries returnCode.
 */
export function okEnvelope(
  version: ApiVersion,
  defaultCode: number | undefined,
  payload: Record<string, unknown>,
  options: { outcome?: Outcome; status?: number; message?: string } = {},
): Envelope {
  const status = options.status ?? 200
  const head: Record<string, unknown> = { status }
  if (version === 'v2') head.returnCode = options.outcome ? outcomeCodes[options.outcome] : defaultCode
  if (options.message) head.message = options.message
  return { status, body: { ...head, ...payload } }
}

/** Unknown kinds or thrown non-DomainErrors become INTERNAL: never a stack in the body. */
export function toDomainError(error: unknown): DomainError {
  return error instanceof DomainError ? error : new DomainError('INTERNAL', undefined, { cause: error })
}
