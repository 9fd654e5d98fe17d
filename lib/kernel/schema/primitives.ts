// Strings, numbers, booleans and fixed values, with the checks the gateway's inputs use.
import { hasLength, invalidFormat, invalidType, invalidValue, lengthOrigin, tooBig, tooSmall, type Payload } from './issues.ts'
import { type JsonSchema, ZodType } from './schema.ts'

/** Bounds as JSON Schema states them: the tightest of each (the largest minimum, the smallest maximum). */
interface Bounds {
  minimum?: number
  maximum?: number
}

function narrowed(bounds: Bounds, minimum: number | undefined, maximum: number | undefined): Bounds {
  return {
    minimum: minimum === undefined || (bounds.minimum !== undefined && bounds.minimum >= minimum) ? bounds.minimum : minimum,
    maximum: maximum === undefined || (bounds.maximum !== undefined && bounds.maximum <= maximum) ? bounds.maximum : maximum,
  }
}

/** zod's date-time (RFC 3339: seconds required, a Z or, with offset, ±hh:mm). */
const dateSource =
  '(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))'
const secondsSource = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?'

function dateTimePattern(offset: boolean): RegExp {
  const zones = offset ? 'Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)' : 'Z'
  return new RegExp(`^${dateSource}T(?:${secondsSource}(?:${zones}))$`)
}

/**
 * A length as a length check counts it: a string in code points (an emoji is one character,
 * as zod 4.6 counts it; a lone surrogate is one too), anything else by its `length`.
 */
function lengthOf(value: { length: number }): number {
  if (typeof value !== 'string' || !/[\uD800-\uDBFF]/.test(value)) return value.length
  let count = 0
  for (const _ of value) count++
  return count
}

type StringFormat = { format: 'url' } | { format: 'datetime'; pattern: RegExp }

export class ZodString extends ZodType<string, string> {
  bounds: Bounds = {}
  patterns: RegExp[] = []
  format: StringFormat | undefined

  protected parseOwn(payload: Payload): Payload {
    if (typeof payload.value !== 'string') payload.issues.push(invalidType('string', payload.value))
    return payload
  }

  min(length: number, message?: string): ZodString {
    return this.withLimits({ minimum: length }, (value) => (lengthOf(value) < length ? tooSmall(lengthOrigin(value), length, message) : undefined))
  }

  max(length: number, message?: string): ZodString {
    return this.withLimits({ maximum: length }, (value) => (lengthOf(value) > length ? tooBig(lengthOrigin(value), length, message) : undefined))
  }

  regex(pattern: RegExp, message?: string): ZodString {
    const copy = this.withCheck((payload) => {
      pattern.lastIndex = 0
      if (!pattern.test(payload.value as string)) payload.issues.push(invalidFormat('regex', pattern, message))
    })
    copy.patterns = [...this.patterns, pattern]
    return copy
  }

  /** Any URL the WHATWG parser takes, surrounding spaces trimmed. */
  url(message?: string): ZodString {
    const copy = this.withCheck((payload) => {
      const trimmed = (payload.value as string).trim()
      if (URL.canParse(trimmed)) payload.value = trimmed.replace(/[\t\n\r]/g, '')
      else payload.issues.push(invalidFormat('url', undefined, message))
    })
    copy.format = { format: 'url' }
    return copy
  }

  datetime(options: { offset?: boolean } = {}): ZodString {
    const pattern = dateTimePattern(options.offset === true)
    const copy = this.withCheck((payload) => {
      if (!pattern.test(payload.value as string)) payload.issues.push(invalidFormat('datetime', pattern))
    })
    copy.format = { format: 'datetime', pattern }
    return copy
  }

  private withLimits(limit: Bounds, problem: (value: { length: number }) => ReturnType<typeof tooBig> | undefined): ZodString {
    const copy = this.withCheck((payload) => {
      const issue = problem(payload.value as { length: number })
      if (issue) payload.issues.push(issue)
    }, hasLength)
    copy.bounds = narrowed(this.bounds, limit.minimum, limit.maximum)
    return copy
  }

  jsonSchema(): JsonSchema {
    const json: JsonSchema = { type: 'string' }
    if (this.bounds.minimum !== undefined) json.minLength = this.bounds.minimum
    if (this.bounds.maximum !== undefined) json.maxLength = this.bounds.maximum
    if (this.format?.format === 'url') json.format = 'uri'
    if (this.format?.format === 'datetime') json.format = 'date-time'
    // The same pattern added twice is stated once (zod keeps a set of them).
    const patterns = [...new Set([...this.patterns, ...(this.format?.format === 'datetime' ? [this.format.pattern] : [])])]
    if (patterns.length === 1) json.pattern = patterns[0]!.source
    if (patterns.length > 1) json.allOf = patterns.map((pattern) => ({ pattern: pattern.source }))
    return json
  }
}

export class ZodNumber extends ZodType<number, number> {
  bounds: Bounds = {}
  isInt = false

  protected parseOwn(payload: Payload): Payload {
    if (typeof payload.value !== 'number' || !Number.isFinite(payload.value)) payload.issues.push(invalidType('number', payload.value))
    return payload
  }

  /** A safe integer: not an integer stops the other checks; beyond 2^53 is too big (or small). */
  int(): ZodNumber {
    const copy = this.withCheck((payload) => {
      const value = payload.value as number
      // Not an integer stops even the length checks of the arrays around it (zod's continue: false).
      if (!Number.isInteger(value)) payload.issues.push({ ...invalidType('int', value), continue: false })
      else if (value > Number.MAX_SAFE_INTEGER) payload.issues.push(tooBig('int', Number.MAX_SAFE_INTEGER))
      else if (value < Number.MIN_SAFE_INTEGER) payload.issues.push(tooSmall('int', Number.MIN_SAFE_INTEGER))
    })
    copy.isInt = true
    copy.bounds = narrowed(this.bounds, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
    return copy
  }

  min(minimum: number, message?: string): ZodNumber {
    const copy = this.withCheck((payload) => {
      if ((payload.value as number) < minimum) payload.issues.push(tooSmall('number', minimum, message))
    })
    copy.bounds = narrowed(this.bounds, minimum, undefined)
    return copy
  }

  max(maximum: number, message?: string): ZodNumber {
    const copy = this.withCheck((payload) => {
      if ((payload.value as number) > maximum) payload.issues.push(tooBig('number', maximum, message))
    })
    copy.bounds = narrowed(this.bounds, undefined, maximum)
    return copy
  }

  jsonSchema(): JsonSchema {
    const json: JsonSchema = { type: this.isInt ? 'integer' : 'number' }
    if (this.bounds.minimum !== undefined) json.minimum = this.bounds.minimum
    if (this.bounds.maximum !== undefined) json.maximum = this.bounds.maximum
    return json
  }
}

export class ZodBoolean extends ZodType<boolean, boolean> {
  protected parseOwn(payload: Payload): Payload {
    if (typeof payload.value !== 'boolean') payload.issues.push(invalidType('boolean', payload.value))
    return payload
  }
  jsonSchema(): JsonSchema {
    return { type: 'boolean' }
  }
}

type Primitive = string | number | boolean | null

/** One of a list of values (z.enum: strings; z.literal: any one primitive). */
export class ZodValues<T extends Primitive> extends ZodType<T, T> {
  readonly values: readonly T[]
  /** z.literal: its JSON Schema is a const. */
  readonly single: boolean

  constructor(values: readonly T[], single: boolean) {
    super()
    this.values = values
    this.single = single
  }

  protected parseOwn(payload: Payload): Payload {
    if (!this.values.includes(payload.value as T)) payload.issues.push(invalidValue(this.values))
    return payload
  }

  jsonSchema(): JsonSchema {
    const value = this.values[0]
    if (this.single) return { type: value === null ? 'null' : typeof value, const: value }
    const types = new Set(this.values.map((v) => typeof v))
    return { ...(types.size === 1 && (types.has('string') || types.has('number')) ? { type: [...types][0] } : {}), enum: [...this.values] }
  }
}
