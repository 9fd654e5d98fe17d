// Query parameters of the history and statistics endpoints (docs/api.md, "History and statistics"), shared by the
// v1 and v2 functions. Only the date form differs between the versions. Each parameter is
// one schema (lib/api/input-schema.ts): it parses, and the OpenAPI document shows it, so the
// patterns below are exactly what is accepted.
import * as z from '../kernel/schema/index.ts'
import type { ParamDoc } from './function-config.ts'
import { DomainError } from '../kernel/errors.ts'
import type { HistoryFilter, PageRequest } from '../history/query.ts'
import type { OrderType } from '../orders/types.ts'
import { parseLocal } from '../kernel/time.ts'
import type { ApiVersion } from './envelope.ts'
import { positiveIntString } from './fields.ts'
import { maxParamLength, optional, QueryInput, withDefault } from './input-schema.ts'
import { countText, limitText, localDateTimeT, localDateTimeV1, positiveDecimalText } from './patterns.ts'

export const defaultLimit = 25
export const maxLimit = 100

const text = (pattern: string) => z.string().max(maxParamLength).regex(new RegExp(pattern))
const count = text(countText).transform(Number)

const dateForms: Record<ApiVersion, string> = {
  v1: 'YYYY-MM-DD HH:MM:SS',
  v2: 'YYYY-MM-DDTHH:MM:SS',
}

/** created_after / created_before: a real local time; the message names the parameter. */
function dateField(key: string, version: ApiVersion, meaning: string) {
  const extraForms = version === 'v1' ? ' (also YYYY-MM-DDTHH:MM:SS, and either with a trailing Z or ±HH:MM)' : ''
  return optional(text(version === 'v1' ? localDateTimeV1 : localDateTimeT), {
    invalid: 'DATE_INVALID',
    message: `${key} must be ${dateForms[version]}`,
    description: `${meaning}, in the gateway's timezone: ${dateForms[version]}${extraForms}, a real date from year 0100.`,
  })
}

const orderTypes: Record<string, OrderType> = { TO_GO: 'TO_GO', ON_PREMISE: 'ON_PREMISE', ON_PREMISES: 'ON_PREMISE' }

function historyFields(version: ApiVersion) {
  return {
    limit: withDefault(text(limitText).transform(Number), defaultLimit, {
      // Digits above 100 are "too large" (v1 412, v2 -26); anything else is invalid.
      invalid: (value) => (typeof value === 'string' && /^[0-9]{1,256}$/.test(value) && Number(value) > maxLimit ? 'LIMIT_TOO_LARGE' : 'LIMIT_INVALID'),
      description: `Page size, 1 to 100 (digits). Above 100: ${version === 'v1' ? '412' : '400 / -26'}.`,
    }),
    offset: withDefault(count, 0, { invalid: 'OFFSET_INVALID', description: 'Position of the first summary, newest first (up to 10 digits).' }),
    as_of: optional(count, {
      invalid: 'AS_OF_INVALID',
      description: 'Extension: the asOf of an earlier page. Orders cleared since then are left out, so paging through offsets sees no duplicates or holes.',
    }),
    created_after: dateField('created_after', version, 'Only orders started at or after this time'),
    created_before: dateField('created_before', version, 'Only orders started before this time (exclusive)'),
    order_type: optional(
      z.enum(['TO_GO', 'ON_PREMISE', 'ON_PREMISES']).transform((value) => orderTypes[value]),
      {
        invalid: 'ORDER_TYPE_INVALID',
        description: 'TO_GO or ON_PREMISE (ON_PREMISES accepted as ON_PREMISE).',
      },
    ),
    location_name: optional(positiveIntString, { invalid: 'LOCATION_INVALID', description: 'Exact location (table number), 1 to 2^31-1 as digits.' }),
  }
}

/** The parameters of GET /api/vN/orders. */
export const historyQuery = { v1: new QueryInput(historyFields('v1')), v2: new QueryInput(historyFields('v2')) }

export interface HistoryListInput {
  filter: HistoryFilter
  page: PageRequest
}

/**
 * The input of a request without parameters (a poll of the first page, the usual request),
 * per version, for the timezone it was read in: it is the defaults, the same every time
 * (issue 30: reading seven absent parameters and building the objects cost per request).
 * Frozen, since every such request shares it.
 */
const withoutParameters: Partial<Record<ApiVersion, { timezone: string; input: HistoryListInput }>> = {}

/** Every parameter of GET /api/vN/orders, checked in a fixed order (first problem wins). */
export function historyListInput(query: URLSearchParams, version: ApiVersion, timezone: string): HistoryListInput {
  if (query.size > 0) return readHistoryListInput(query, version, timezone)
  const known = withoutParameters[version]
  if (known?.timezone === timezone) return known.input
  const { filter, page } = readHistoryListInput(query, version, timezone)
  const input = Object.freeze({ filter: Object.freeze(filter), page: Object.freeze(page) })
  withoutParameters[version] = { timezone, input }
  return input
}

function readHistoryListInput(query: URLSearchParams, version: ApiVersion, timezone: string): HistoryListInput {
  const input = historyQuery[version].parse(query)
  const filter: HistoryFilter = {}
  const time = (key: 'created_after' | 'created_before') => {
    const value = input[key]
    if (value === undefined) return undefined
    const ms = parseLocal(value, timezone, { separator: version === 'v1' ? 'either' : 'T', allowOffset: version === 'v1' })
    // The pattern admits only real dates, so this is a net, not a rule.
    if (ms === undefined) throw new DomainError('DATE_INVALID', `${key} must be ${dateForms[version]}`)
    return ms
  }
  const createdAfter = time('created_after')
  const createdBefore = time('created_before')
  if (createdAfter !== undefined) filter.createdAfter = createdAfter
  if (createdBefore !== undefined) filter.createdBefore = createdBefore
  if (input.order_type !== undefined) filter.orderType = input.order_type
  if (input.location_name !== undefined) filter.locationName = input.location_name
  const page = { offset: input.offset, limit: input.limit }
  return { filter, page: input.as_of === undefined ? page : { ...page, asOf: input.as_of } }
}

/** OpenAPI documentation of the list parameters, per version. */
export function historyQueryDocs(version: ApiVersion): Record<string, ParamDoc> {
  return historyQuery[version].params()
}

/** target_time of the statistics routes. */
export const targetTimeQuery = new QueryInput({
  target_time: optional(text(positiveDecimalText).transform(Number), {
    invalid: 'TARGET_TIME_INVALID',
    description:
      "Target time in seconds: a positive decimal (up to 9 integer digits and 6 decimals). Default: the gateway's targetTimeDefault setting (300 out of the box).",
  }),
})

/** target_time: a positive number of seconds; absent → undefined. */
export function targetTimeParam(query: URLSearchParams): number | undefined {
  return targetTimeQuery.parse(query).target_time
}

export const targetTimeDoc: Record<string, ParamDoc> = targetTimeQuery.params()

/** GET /api/v2/statistics/hourly: the range (checked first), then target_time. */
export const hourlyQuery = new QueryInput({
  range: withDefault(z.enum(['day', 'week']), 'day', {
    invalid: 'DATE_INVALID',
    message: 'range must be day or week',
    description: '`day` (today) or `week` (the last 7 days, today included; each hour summed over the days).',
  }),
  ...targetTimeQuery.fields,
})
