// The callback URL (`http_client`) of the register endpoints, one schema (lib/api/input-schema.ts)
// that parses and documents it. The URL rules are the webhook target's (lib/webhooks/target.ts,
// the WHATWG URL parser): JSON Schema can only say `format: uri`, so the description says the
// rest, and a refused URL keeps the target's own words in the message.
import * as z from '../kernel/schema/index.ts'
import { DomainError } from '../kernel/errors.ts'
import { maxUrlLength, parseTarget } from '../webhooks/target.ts'
import { BodyInput, QueryInput, required } from './input-schema.ts'

/** Why the target refuses a value (undefined: it takes it). */
function problem(value: unknown): DomainError | undefined {
  try {
    parseTarget(value)
    return undefined
  } catch (error) {
    if (error instanceof DomainError) return error
    throw error
  }
}

const description = 'Callback URL: an absolute http or https URL with a host and no user name or password'

function callbackUrl(maxLength: number) {
  const schema = z
    .string()
    .min(1)
    .max(maxLength)
    .refine((value) => problem(value) === undefined)
    .meta({ format: 'uri' })
  const options = {
    // "" is missing, like absence (-28); anything else refused is -29 with the target's words.
    invalid: (value: unknown) => (value === '' ? 'CALLBACK_MISSING' : 'CALLBACK_INVALID') as 'CALLBACK_MISSING' | 'CALLBACK_INVALID',
    message: (value: unknown) => (typeof value === 'string' && value.length > maxLength ? `longer than ${maxLength} characters` : problem(value)?.detail),
    description: `${description}, at most ${maxLength} characters`,
  }
  return { schema, options }
}

const inQuery = callbackUrl(256)
const inBody = callbackUrl(maxUrlLength)

/** GET /api/v1/register. */
export const registerQuery = new QueryInput({ http_client: required(inQuery.schema, { ...inQuery.options, missing: 'CALLBACK_MISSING' }) })

/** POST /api/v2/register. */
export const registerBody = new BodyInput({ http_client: required(inBody.schema, { ...inBody.options, missing: 'CALLBACK_MISSING' }) })

/**
 * DELETE /api/v2/register: the URL in the query, required. Not in a body: a DELETE's body has
 * no defined meaning in HTTP and some clients and proxies drop it, and "query or body" is a
 * rule the OpenAPI document cannot state, so the document and the server could not agree.
 */
export const unregisterQuery = new QueryInput({ http_client: required(inQuery.schema, { ...inQuery.options, missing: 'CALLBACK_MISSING' }) })
