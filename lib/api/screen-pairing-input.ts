// Inputs of the screen sign-in endpoints (functions/v2/board.pairing.*): the name a screen
// suggests for its token, the code and name an approver sends, and the handle a screen polls.
import * as z from '../kernel/schema/index.ts'
import { DomainError } from '../kernel/errors.ts'
import { scopes } from '../tokens/scopes.ts'
import { BodyInput, optional, required } from './input-schema.ts'

const name = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)

const pollHandle = z.string().regex(/^[0-9a-f]{32}$/)

/** POST /api/v2/board/pairing: the token name the new screen suggests, and the request it replaces. */
export const pairingRequestBody = new BodyInput({
  name: optional(name, {
    invalid: 'TOKEN_NAME_INVALID',
    description: 'Token name the new screen suggests (1-64 letters, digits, hyphens or underscores); default "screen"',
  }),
  replaces: optional(pollHandle, {
    invalid: 'SCREEN_REQUEST_NOT_FOUND',
    description:
      "The id of this screen's earlier request, when it asks for a new code: that request is dropped, so asking again holds one place (an unknown or expired one is ignored)",
  }),
})

/** POST /api/v2/board/pairing/approve: the code the new screen shows, and its token's name. */
export const pairingApproveBody = new BodyInput({
  code: required(z.string().regex(/^[A-Za-z0-9 -]{1,32}$/), {
    invalid: 'SCREEN_CODE_UNKNOWN',
    missing: 'SCREEN_CODE_UNKNOWN',
    description: 'The code the new screen shows, e.g. K7QM-4XTP (case, spaces and dashes do not matter)',
  }),
  name: optional(name, { invalid: 'TOKEN_NAME_INVALID', description: "Name of the new screen's token; default the name it suggested" }),
  scope: optional(z.enum(scopes), {
    invalid: 'SCOPE_INVALID',
    description: "Scope of the new screen's token: read, screen, pos or admin; default screen (never more than the approver's: 403/-51)",
  }),
})

/** The handle a new screen polls with: 32 hex characters, else no such request. */
export function pairingId(value: string | undefined): string {
  if (!value || !/^[0-9a-f]{32}$/.test(value)) throw new DomainError('SCREEN_REQUEST_NOT_FOUND')
  return value
}
