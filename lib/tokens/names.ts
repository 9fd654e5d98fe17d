// Access token names (spec: letters, digits, hyphen, underscore; we bound them to 1-64).
import { DomainError } from '../kernel/errors.ts'

export const defaultTokenName = 'default'
const namePattern = /^[A-Za-z0-9_-]{1,64}$/

/** The name given, `default` when absent; -4 for anything else. */
export function tokenName(value: string | undefined): string {
  if (value === undefined) return defaultTokenName
  if (!namePattern.test(value)) throw new DomainError('TOKEN_NAME_INVALID')
  return value
}
