// Bodies of the simulator endpoints (extension: simulator). Each field is one schema
// (lib/api/input-schema.ts): it parses, and it is what the OpenAPI document shows.
import * as z from '../kernel/schema/index.ts'
import type { JsonSchema } from './function-config.ts'
import { booleanLike, positiveInt } from './fields.ts'
import { BodyInput, required, withDefault } from './input-schema.ts'
import { upTo } from './patterns.ts'

const tracker = required(positiveInt, {
  missing: 'SIM_INPUT_INVALID',
  invalid: 'SIM_INPUT_INVALID',
  description: 'Tracker number in the simulated restaurant (1 to 2^31-1, a JSON integer or its digits)',
})

/** POST /api/v2/simulator/clear. */
export const simClearBody = new BodyInput({ tracker })

/** POST /api/v2/simulator/place. */
export const simPlaceBody = new BodyInput({
  tracker,
  table: required(positiveInt, {
    missing: 'SIM_INPUT_INVALID',
    invalid: 'SIM_INPUT_INVALID',
    description: 'Table number (1 to 2^31-1, a JSON integer or its digits)',
  }),
})

/** POST /api/v2/simulator/start. */
export const simStartBody = new BodyInput({
  tracker,
  toGo: withDefault(booleanLike, false, { invalid: 'SIM_INPUT_INVALID', description: 'true: the to-go starter; false: the dine-in one' }),
})

/** A number 1..max as the parser takes numbers (a JSON integer or its digits, leading zeros allowed). */
function upToNumber(max: number) {
  return z.union([
    z.number().int().min(1).max(max),
    z
      .string()
      .max(10)
      .regex(new RegExp(`^0*${upTo(max)}$`)),
  ])
}

/**
 * The simulator bodies as the running restaurant takes them, for the document: the parser
 * above takes any positive number and the restaurant refuses one it does not have (-38 with
 * the range in the message), so the document served by a gateway states its own range.
 */
export function simulatorBodySchemas(restaurant: { trackers: number; tables: number }): Record<string, JsonSchema> {
  const options = { missing: 'SIM_INPUT_INVALID', invalid: 'SIM_INPUT_INVALID' } as const
  const tracker = required(upToNumber(restaurant.trackers), {
    ...options,
    description: `Tracker number in the simulated restaurant (1 to ${restaurant.trackers}, a JSON integer or its digits)`,
  })
  const table = required(upToNumber(restaurant.tables), { ...options, description: `Table number (1 to ${restaurant.tables}, a JSON integer or its digits)` })
  return {
    'POST /api/v2/simulator/start': new BodyInput({ tracker, toGo: simStartBody.fields.toGo }).schema(),
    'POST /api/v2/simulator/place': new BodyInput({ tracker, table }).schema(),
    'POST /api/v2/simulator/clear': new BodyInput({ tracker }).schema(),
  }
}
