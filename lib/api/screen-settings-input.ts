// The `only` query parameter of POST /api/v2/board/settings, one schema (lib/api/input-schema.ts)
// that parses and documents it.
import * as z from '../kernel/schema/index.ts'
import { optional, QueryInput } from './input-schema.ts'

export const screenSettingsWriteQuery = new QueryInput({
  only: optional(z.enum(['missing']), {
    invalid: 'SETTINGS_VALUE_INVALID',
    description:
      "missing: set only the keys the gateway does not hold yet (a screen signing in sends its browser's choices; a key an admin set meanwhile is kept)",
  }),
})
