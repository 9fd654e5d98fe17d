// Request bodies of the active-order endpoints (docs/api.md, "Active orders"), shared by v1 and v2 so both
// read `name`, `orderType`, `locationName` and `tracking` the same way. Each field is one
// schema: it parses (lib/api/input-schema.ts) and it is what the OpenAPI document shows.
import * as z from '../kernel/schema/index.ts'
import { booleanLike, positiveInt } from './fields.ts'
import { BodyInput, optional, required, withDefault } from './input-schema.ts'
import type { OrderType } from '../orders/types.ts'

export interface CreateFields {
  name: number
  orderType?: OrderType
  locationName?: number
}

/** ON_PREMISES (the spec's spelling) is accepted and stored as ON_PREMISE. */
const orderType = z.enum(['ON_PREMISE', 'ON_PREMISES', 'TO_GO']).transform((value): OrderType => (value === 'TO_GO' ? 'TO_GO' : 'ON_PREMISE'))

const name = required(positiveInt, {
  missing: 'ORDER_NAME_MISSING',
  invalid: 'ORDER_NAME_INVALID',
  description: 'Order number (the tracker number): 1 to 2^31-1, a JSON integer or its digits',
})
const locationName = optional(positiveInt, {
  invalid: 'LOCATION_INVALID',
  description: 'Table number (1 to 2^31-1, a JSON integer or its digits): the order is located there at once',
})

/** The body of POST /api/vN/activeorders; orderType is required in v2 only. */
export const createBody = {
  v1: new BodyInput({
    name,
    orderType: optional(orderType, { invalid: 'ORDER_TYPE_INVALID', description: 'Stored as ON_PREMISE or TO_GO; default ON_PREMISE' }),
    locationName,
  }),
  v2: new BodyInput({
    name,
    orderType: required(orderType, { missing: 'ORDER_TYPE_MISSING', invalid: 'ORDER_TYPE_INVALID', description: 'Stored as ON_PREMISE or TO_GO' }),
    locationName,
  }),
}

/** `tracking`: true (the default) pages until cancelled; false pages once (~60 s). */
export const pageBody = new BodyInput({
  tracking: withDefault(booleanLike, true, {
    invalid: 'TRACKING_INVALID',
    description: 'true: page until cancelled or cleared (lease re-sent); false: page once (about 60 s)',
  }),
})
