// Bodies of the simulator endpoints (extension: simulator). Each field is one zod schema
// (lib/api/input-schema.ts): it parses, and it is what the OpenAPI document shows.
import { booleanLike, positiveInt } from './fields.ts'
import { BodyInput, required, withDefault } from './input-schema.ts'

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
