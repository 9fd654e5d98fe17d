// Query parameters of the history and statistics endpoints (decisions §3-4), shared by the
// v1 and v2 functions. Only the date form differs between the versions.
import type { JsonSchema, ParamDoc } from '../../runtime/define.ts'
import { DomainError } from '../errors.ts'
import type { HistoryFilter, PageRequest } from '../history/query.ts'
import type { OrderType } from '../orders/types.ts'
import { parseLocal } from '../time.ts'
import type { ApiVersion } from './envelope.ts'
import { nonNegativeIntText, positiveInt, queryValue } from './input.ts'

export const defaultLimit = 25
export const maxLimit = 100

const digits = /^[0-9]+$/

/** limit: an integer 1..100; digits above 100 are "too large" (v1 412), anything else invalid. */
export function limitParam(query: URLSearchParams): number {
  const text = queryValue(query, 'limit', 'LIMIT_INVALID')
  if (text === undefined) return defaultLimit
  if (!digits.test(text)) throw new DomainError('LIMIT_INVALID')
  const limit = Number(text)
  if (limit === 0) throw new DomainError('LIMIT_INVALID')
  if (limit > maxLimit) throw new DomainError('LIMIT_TOO_LARGE')
  return limit
}

export function offsetParam(query: URLSearchParams): number {
  const text = queryValue(query, 'offset', 'OFFSET_INVALID')
  return text === undefined ? 0 : nonNegativeIntText(text, 'OFFSET_INVALID')
}

export function asOfParam(query: URLSearchParams): number | undefined {
  const text = queryValue(query, 'as_of', 'AS_OF_INVALID')
  return text === undefined ? undefined : nonNegativeIntText(text, 'AS_OF_INVALID')
}

const dateForms: Record<ApiVersion, string> = {
  v1: 'YYYY-MM-DD HH:MM:SS',
  v2: 'YYYY-MM-DDTHH:MM:SS',
}

/**
 * created_after / created_before, read in the gateway's timezone. v2: the T form only; v1:
 * the space form, and also the T form and a trailing offset (Z or ±HH:MM). The message
 * names the parameter, so each bad date parameter has its own message.
 */
export function dateParam(query: URLSearchParams, key: string, version: ApiVersion, timezone: string): number | undefined {
  const problem = `${key} must be ${dateForms[version]}`
  const text = queryValue(query, key, 'DATE_INVALID')
  if (text === undefined) return undefined
  const ms =
    version === 'v1'
      ? parseLocal(text, timezone, { separator: 'either', allowOffset: true })
      : parseLocal(text, timezone, { separator: 'T' })
  if (ms === undefined) throw new DomainError('DATE_INVALID', problem)
  return ms
}

const orderTypes: Record<string, OrderType> = { TO_GO: 'TO_GO', ON_PREMISE: 'ON_PREMISE', ON_PREMISES: 'ON_PREMISE' }

export function orderTypeParam(query: URLSearchParams): OrderType | undefined {
  const text = queryValue(query, 'order_type', 'ORDER_TYPE_INVALID')
  if (text === undefined) return undefined
  if (!Object.hasOwn(orderTypes, text)) throw new DomainError('ORDER_TYPE_INVALID')
  return orderTypes[text]
}

export function locationParam(query: URLSearchParams): number | undefined {
  const text = queryValue(query, 'location_name', 'LOCATION_INVALID')
  return text === undefined ? undefined : positiveInt(text, 'LOCATION_INVALID')
}

export interface HistoryListInput {
  filter: HistoryFilter
  page: PageRequest
}

/** Every parameter of GET /api/vN/orders, checked in a fixed order (first problem wins). */
export function historyListInput(query: URLSearchParams, version: ApiVersion, timezone: string): HistoryListInput {
  const limit = limitParam(query)
  const offset = offsetParam(query)
  const asOf = asOfParam(query)
  const createdAfter = dateParam(query, 'created_after', version, timezone)
  const createdBefore = dateParam(query, 'created_before', version, timezone)
  const orderType = orderTypeParam(query)
  const locationName = locationParam(query)
  const filter: HistoryFilter = {}
  if (createdAfter !== undefined) filter.createdAfter = createdAfter
  if (createdBefore !== undefined) filter.createdBefore = createdBefore
  if (orderType !== undefined) filter.orderType = orderType
  if (locationName !== undefined) filter.locationName = locationName
  return { filter, page: asOf === undefined ? { offset, limit } : { offset, limit, asOf } }
}

const decimal = /^[0-9]{1,9}(\.[0-9]{1,6})?$/

/** target_time: a positive number of seconds (digits, optional decimals); absent → undefined. */
export function targetTimeParam(query: URLSearchParams): number | undefined {
  const text = queryValue(query, 'target_time', 'TARGET_TIME_INVALID')
  if (text === undefined) return undefined
  if (!decimal.test(text)) throw new DomainError('TARGET_TIME_INVALID')
  const seconds = Number(text)
  if (!(seconds > 0)) throw new DomainError('TARGET_TIME_INVALID')
  return seconds
}

const integer = (description: string, extra: JsonSchema = {}): ParamDoc => ({
  description,
  schema: { type: 'integer', ...extra },
})

/** OpenAPI documentation of the list parameters, per version. */
export function historyQueryDocs(version: ApiVersion): Record<string, ParamDoc> {
  const form = dateForms[version]
  const extraForms = version === 'v1' ? ' (also YYYY-MM-DDTHH:MM:SS, and either with a trailing Z or ±HH:MM)' : ''
  return {
    offset: integer('Position of the first summary, newest first. Default 0.', { minimum: 0, default: 0 }),
    limit: integer(`Page size, 1 to 100. Default 25. Above 100: ${version === 'v1' ? '412' : '400 / -26'}.`, {
      minimum: 1,
      maximum: maxLimit,
      default: defaultLimit,
    }),
    created_after: {
      description: `Only orders started at or after this time, in the gateway's timezone: ${form}${extraForms}.`,
      schema: { type: 'string' },
    },
    created_before: {
      description: `Only orders started before this time (exclusive), in the gateway's timezone: ${form}${extraForms}.`,
      schema: { type: 'string' },
    },
    order_type: {
      description: 'TO_GO or ON_PREMISE (ON_PREMISES accepted as ON_PREMISE).',
      schema: { type: 'string', enum: ['TO_GO', 'ON_PREMISE', 'ON_PREMISES'] },
    },
    location_name: integer('Exact location (table number), a positive integer.', { minimum: 1 }),
    as_of: integer(
      'Extension: the asOf of an earlier page. Orders cleared since then are left out, so paging through offsets sees no duplicates or holes.',
      { minimum: 0 },
    ),
  }
}

export const targetTimeDoc: Record<string, ParamDoc> = {
  target_time: {
    description: "Target time in seconds (a positive number). Default: the gateway's targetTimeDefault setting (300 out of the box).",
    schema: { type: 'number', exclusiveMinimum: 0 },
  },
}
