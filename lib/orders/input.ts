// Request input of the active-order endpoints (decisions §2), shared by v1 and v2 so both
// read `name`, `orderType`, `locationName` and `tracking` the same way.
import { booleanValue, positiveInt } from '../api/input.ts'
import { DomainError } from '../errors.ts'
/** A JSON Schema fragment (for the OpenAPI document). */
type JsonSchema = Record<string, unknown>
import type { OrderType } from './types.ts'

export interface CreateFields {
  name: number
  orderType?: OrderType
  locationName?: number
}

const absent = (value: unknown) => value === undefined || value === null

/** ON_PREMISES (the spec's spelling) is accepted and stored as ON_PREMISE. */
export function orderType(value: unknown): OrderType {
  if (value === 'TO_GO') return 'TO_GO'
  if (value === 'ON_PREMISE' || value === 'ON_PREMISES') return 'ON_PREMISE'
  throw new DomainError('ORDER_TYPE_INVALID')
}

/** The body of POST /api/vN/activeorders; orderType is required in v2 only. */
export function createFields(body: Record<string, unknown>, options: { requireOrderType: boolean }): CreateFields {
  if (absent(body.name)) throw new DomainError('ORDER_NAME_MISSING')
  const name = positiveInt(body.name, 'ORDER_NAME_INVALID')
  let type: OrderType | undefined
  if (absent(body.orderType)) {
    if (options.requireOrderType) throw new DomainError('ORDER_TYPE_MISSING')
  } else {
    type = orderType(body.orderType)
  }
  const locationName = absent(body.locationName) ? undefined : positiveInt(body.locationName, 'LOCATION_INVALID')
  return { name, orderType: type, locationName }
}

/** `tracking`: true (the default) pages until cancelled; false pages once (~60 s). */
export function tracking(body: Record<string, unknown>): boolean {
  return absent(body.tracking) ? true : booleanValue(body.tracking, 'TRACKING_INVALID')
}

const positiveIntSchema = {
  oneOf: [
    { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    { type: 'string', pattern: '^[0-9]{1,10}$' },
  ],
}

export function createBodySchema(options: { requireOrderType: boolean }): JsonSchema {
  return {
    type: 'object',
    required: options.requireOrderType ? ['name', 'orderType'] : ['name'],
    properties: {
      name: { ...positiveIntSchema, description: 'Order number (the tracker number); a positive integer or digit string' },
      orderType: {
        type: 'string',
        enum: ['ON_PREMISE', 'ON_PREMISES', 'TO_GO'],
        description: options.requireOrderType ? 'Stored as ON_PREMISE or TO_GO' : 'Stored as ON_PREMISE or TO_GO; default ON_PREMISE',
      },
      locationName: { ...positiveIntSchema, description: 'Table number: the order is located there at once' },
    },
  }
}

export const pageBodySchema: JsonSchema = {
  type: 'object',
  properties: {
    tracking: {
      oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }],
      default: true,
      description: 'true: page until cancelled or cleared (lease re-sent); false: page once (about 60 s)',
    },
  },
}
