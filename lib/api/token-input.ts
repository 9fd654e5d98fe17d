// The `name` query parameter of the access-token endpoints, one schema (lib/api/input-schema.ts)
// that parses and documents it.
import * as z from '../kernel/schema/index.ts'
import { defaultTokenName } from '../tokens/names.ts'
import { defaultScope, scopes } from '../tokens/scopes.ts'
import { optional, QueryInput, withDefault } from './input-schema.ts'

const name = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)

/** Issuing a token: the name given, "default" when absent. */
export const issueTokenQuery = new QueryInput({
  name: withDefault(name, defaultTokenName, {
    invalid: 'TOKEN_NAME_INVALID',
    description: 'Token name: 1-64 letters, digits, hyphens or underscores',
  }),
  scope: withDefault(z.enum(scopes), defaultScope, {
    invalid: 'SCOPE_INVALID',
    description: 'What the new token may do: read, screen, pos or admin (default admin); never more than the token that mints it',
  }),
})

/** Revoking: every token of this name; absent, the calling token. */
export const revokeTokenQuery = new QueryInput({
  name: optional(name, { invalid: 'TOKEN_NAME_INVALID', description: 'Name of the token(s) to revoke; absent: the calling token' }),
})
