// What a schema reports about a value it refused, and the English message of each kind of
// problem. The wording is zod 4's (this module replaced zod, whose messages operators already
// read in config errors and the floor plan's -21), so it did not change with the library.

export type PathSegment = string | number

interface IssueBase {
  /** Where in the value, from the value the schema was asked to parse. */
  path: PathSegment[]
  message: string
}

export type Issue =
  | (IssueBase & { code: 'invalid_type' | 'invalid_value' | 'too_big' | 'too_small' | 'invalid_format' | 'invalid_key' | 'invalid_union' | 'custom' })
  | (IssueBase & { code: 'unrecognized_keys'; keys: string[] })

/**
 * An issue while parsing: `continue` issues let the schema's later checks still run; one with
 * `continue: false` stops even the checks that run after other issues (length checks).
 */
export type RawIssue = Issue & { continue?: boolean }

/** A value on its way through a schema, with what was found wrong so far. */
export interface Payload {
  value: unknown
  issues: RawIssue[]
  /** Set by a transform that did not run: the value is not the schema's output. */
  aborted?: boolean
}

/** Whether a payload stops the checks and refinements after it (an issue that does not continue). */
export function aborted(payload: Payload, from = 0): boolean {
  if (payload.aborted) return true
  for (let i = from; i < payload.issues.length; i++) if (payload.issues[i]!.continue !== true) return true
  return false
}

/** Whether an issue stopped the value outright (continue: false), so no check may read it. */
export function refusedOutright(payload: Payload): boolean {
  return payload.aborted === true || payload.issues.some((issue) => issue.continue === false)
}

export function prefixed(key: PathSegment, issues: RawIssue[]): RawIssue[] {
  return issues.map((issue) => ({ ...issue, path: [key, ...issue.path] }))
}

/** The type name a message gives a value: an array, null, NaN and a class's instances by name. */
export function typeOf(value: unknown): string {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? 'number' : String(value)
  if (typeof value !== 'object') return typeof value
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  const maker = 'constructor' in value ? (value as { constructor: unknown }).constructor : undefined
  if (Object.getPrototypeOf(value) !== Object.prototype && maker) return String((maker as { name?: unknown }).name)
  return 'object'
}

/** A length check runs on anything with a length, whatever the schema's type (zod's rule). */
export function hasLength(payload: Payload): boolean {
  const value = payload.value as { length?: unknown } | null | undefined
  return value !== null && value !== undefined && value.length !== undefined
}

/** What a length check calls the value it measured. */
export function lengthOrigin(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : 'unknown'
}

function literal(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : String(value)
}

export function invalidType(expected: string, input: unknown): RawIssue {
  return { code: 'invalid_type', path: [], message: `Invalid input: expected ${expected}, received ${typeOf(input)}` }
}

export function invalidValue(values: readonly unknown[]): RawIssue {
  const message = values.length === 1 ? `Invalid input: expected ${literal(values[0])}` : `Invalid option: expected one of ${values.map(literal).join('|')}`
  return { code: 'invalid_value', path: [], message }
}

/** The unit a size is counted in, for the origins that have one. */
const units: Record<string, string> = { string: 'characters', array: 'items' }

export function tooSmall(origin: string, minimum: number, message?: string): RawIssue {
  const unit = units[origin]
  const text = unit ? `Too small: expected ${origin} to have >=${minimum} ${unit}` : `Too small: expected ${origin} to be >=${minimum}`
  return { code: 'too_small', path: [], message: message ?? text, continue: true }
}

export function tooBig(origin: string, maximum: number, message?: string): RawIssue {
  const unit = units[origin]
  const text = unit ? `Too big: expected ${origin} to have <=${maximum} ${unit}` : `Too big: expected ${origin} to be <=${maximum}`
  return { code: 'too_big', path: [], message: message ?? text, continue: true }
}

/** A string not in its format: a pattern (named in the message), a URL, an ISO time. */
export function invalidFormat(format: 'regex' | 'url' | 'datetime', pattern: RegExp | undefined, message?: string): RawIssue {
  const text = format === 'regex' ? `Invalid string: must match pattern ${String(pattern)}` : format === 'url' ? 'Invalid URL' : 'Invalid ISO datetime'
  return { code: 'invalid_format', path: [], message: message ?? text, continue: true }
}

/** Unknown keys: the object's refinements still run (zod's rule; its keys were all there). */
export function unrecognizedKeys(keys: string[]): RawIssue {
  return {
    code: 'unrecognized_keys',
    path: [],
    keys,
    message: `Unrecognized key${keys.length > 1 ? 's' : ''}: ${keys.map(literal).join(', ')}`,
    continue: true,
  }
}

export function custom(message = 'Invalid input', path: PathSegment[] = []): RawIssue {
  return { code: 'custom', path, message, continue: true }
}
