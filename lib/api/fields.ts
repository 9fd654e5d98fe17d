// The schemas of values many endpoints share: positive integers (JSON number or digit
// text), order references, UUIDs, booleans. Each parses and documents (lib/api/input-schema.ts).
import * as z from '../kernel/schema/index.ts'
import type { OrderRef } from '../orders/types.ts'
import { maxInt32, positiveIntText, uuidPattern } from './patterns.ts'

/** 1..2^31-1 as digits (leading zeros allowed, at most 10 characters). */
export const positiveIntString = z.string().max(10).regex(new RegExp(positiveIntText)).transform(Number)

/** 1..2^31-1 as a JSON number (any JSON spelling of an integer: 12, 12.0, 1.2e1) or as digits. */
export const positiveInt = z.union([z.number().int().min(1).max(maxInt32), positiveIntString])

export const uuidText = z
  .string()
  .regex(new RegExp(uuidPattern))
  .transform((value) => value.toLowerCase())

/** true/false as JSON booleans or the texts "true"/"false". */
export const booleanLike = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')])

/** An active-order reference in a path: a positive integer (its name) or its UUID (any case). */
export const orderRefText = z.union([uuidText.transform((uuid) => ({ uuid }) as OrderRef), positiveIntString.transform((name) => ({ name }) as OrderRef)])
/** v1 clear and page: the order's number only. */
export const orderNameText = positiveIntString.transform((name) => ({ name }) as OrderRef)

/** The path parameters' schemas, for the document (lib/openapi/document.ts). */
export const pathParams = {
  id: { schema: orderRefText, description: 'Active order number (1 to 2^31-1, as digits) or its UUID (any case)' },
  name: { schema: orderNameText, description: 'Active order number (1 to 2^31-1, as digits)' },
  uuid: { schema: uuidText, description: 'Order UUID (8-4-4-4-12 hex, any case)' },
  // Radio upkeep (lib/radio/upkeep.ts normalizeAddress reads it; an unknown one is -47).
  address: {
    schema: z.string().regex(/^(0x)?[0-9a-fA-F]{16}$|^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){7}$/),
    description: "A Zigbee device's EUI-64: 00:12:4b:00:01:02:03:04, 0x00124b0001020304 or 00124b0001020304",
  },
}
