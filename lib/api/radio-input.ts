// Inputs of the radio upkeep endpoints (/api/v2/radio/...): the force flag of a removal.
// Addresses are read by RadioUpkeepService (00:12:4b:..., 0x00124b... or 16 hex digits).
import * as z from '../kernel/schema/index.ts'
import { QueryInput, withDefault } from './input-schema.ts'

export const removeDeviceQuery = new QueryInput({
  force: withDefault(
    z.enum(['true', 'false']).transform((value) => value === 'true'),
    false,
    {
      invalid: 'FORCE_INVALID',
      description: 'true: forget the device even when it does not acknowledge the leave request (asleep, or gone)',
    },
  ),
})
