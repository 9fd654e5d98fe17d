// Objects, arrays, records and unions: schemas made of schemas.
import { aborted, hasLength, invalidType, lengthOrigin, prefixed, tooBig, tooSmall, unrecognizedKeys, type Payload } from './issues.ts'
import { type AnySchema, type Check, describedJson, type Io, type JsonSchema, type Optin, type output, type ZodOptional, ZodType } from './schema.ts'

export type Shape = Record<string, AnySchema>

type Simplify<T> = { [K in keyof T]: T[K] } & {}
type OptionalKeys<S extends Shape> = { [K in keyof S]: undefined extends output<S[K]> ? K : never }[keyof S]
export type ObjectOutput<S extends Shape> = Simplify<{ [K in Exclude<keyof S, OptionalKeys<S>>]: output<S[K]> } & { [K in OptionalKeys<S>]?: output<S[K]> }>
type InputOptionalKeys<S extends Shape> = { [K in keyof S]: undefined extends S[K]['_input'] ? K : never }[keyof S]
export type ObjectInput<S extends Shape> = Simplify<
  { [K in Exclude<keyof S, InputOptionalKeys<S>>]: S[K]['_input'] } & { [K in InputOptionalKeys<S>]?: S[K]['_input'] }
>

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** An object of known keys; other keys are dropped (z.object) or refused (z.strictObject). */
export class ZodObject<S extends Shape> extends ZodType<ObjectOutput<S>, ObjectInput<S>> {
  readonly shape: S
  readonly strict: boolean

  constructor(shape: S, strict: boolean) {
    super()
    this.shape = shape
    this.strict = strict
  }

  protected parseOwn(payload: Payload): Payload {
    const input = payload.value
    if (!isObject(input)) {
      payload.issues.push(invalidType('object', input))
      return payload
    }
    const value: Record<string, unknown> = {}
    for (const key in this.shape) {
      const schema = this.shape[key]!
      const result = schema.run({ value: input[key], issues: [] })
      if (result.issues.length && !(schema.optout === 'optional' && !(key in input))) payload.issues.push(...prefixed(key, result.issues))
      if (result.value !== undefined) value[key] = result.value
      else if (key in input) value[key] = undefined
    }
    if (this.strict) {
      const unknown = Object.keys(input).filter((key) => !Object.hasOwn(this.shape, key))
      if (unknown.length) payload.issues.push(unrecognizedKeys(unknown))
    }
    payload.value = value
    return payload
  }

  /** Every key optional (each schema wrapped, as zod does). */
  partial(): ZodObject<{ [K in keyof S]: ZodOptional<output<S[K]>, S[K]['_input']> }> {
    const shape = Object.fromEntries(Object.entries(this.shape).map(([key, schema]) => [key, schema.optional()]))
    return new ZodObject(shape as { [K in keyof S]: ZodOptional<output<S[K]>, S[K]['_input']> }, this.strict)
  }

  /** Only these keys. */
  pick<K extends keyof S & string>(keys: Record<K, true>): ZodObject<Pick<S, K>> {
    const shape = Object.fromEntries(Object.keys(keys).map((key) => [key, this.shape[key]!]))
    return new ZodObject(shape as Pick<S, K>, this.strict)
  }

  jsonSchema(io: Io): JsonSchema {
    const properties: Record<string, JsonSchema> = {}
    for (const key in this.shape) properties[key] = describedJson(this.shape[key]!, io)
    const required = Object.keys(this.shape).filter((key) => (io === 'input' ? this.shape[key]!.optin : this.shape[key]!.optout) === undefined)
    return {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      ...(this.strict || io === 'output' ? { additionalProperties: false } : {}),
    }
  }
}

/** The first max among the leading length checks (those before any other) that `length` exceeds. */
function sizeCapExceeded(checks: readonly Check[], length: number): number | undefined {
  for (const check of checks) {
    if (!check.size) return undefined
    const maximum = check.size.maximum
    if (maximum !== undefined && length > maximum) return maximum
  }
  return undefined
}

export class ZodArray<Item extends AnySchema> extends ZodType<output<Item>[], Item['_input'][]> {
  readonly item: Item
  minItems: number | undefined
  maxItems: number | undefined

  constructor(item: Item) {
    super()
    this.item = item
  }

  protected parseOwn(payload: Payload): Payload {
    const input = payload.value
    if (!Array.isArray(input)) {
      payload.issues.push(invalidType('array', input))
      return payload
    }
    // Over its size cap (zod 4.6's rule): refused before any item is parsed, and nothing
    // after reads it. The cap is the max of the length checks added before any other check.
    const cap = sizeCapExceeded(this.checks, input.length)
    if (cap !== undefined) {
      payload.issues.push({ ...tooBig('array', cap), continue: false })
      return payload
    }
    // Every index, holes too (map() would skip them).
    const value: unknown[] = []
    for (let index = 0; index < input.length; index++) {
      const result = this.item.run({ value: input[index], issues: [] })
      payload.issues.push(...prefixed(index, result.issues))
      value.push(result.value)
    }
    payload.value = value
    return payload
  }

  min(count: number): ZodArray<Item> {
    const copy = this.withCheck(
      (payload) => {
        if ((payload.value as unknown[]).length < count) payload.issues.push(tooSmall(lengthOrigin(payload.value), count))
      },
      hasLength,
      {},
    )
    copy.minItems = this.minItems === undefined ? count : Math.max(this.minItems, count)
    return copy
  }

  max(count: number): ZodArray<Item> {
    const copy = this.withCheck(
      (payload) => {
        if ((payload.value as unknown[]).length > count) payload.issues.push(tooBig(lengthOrigin(payload.value), count))
      },
      hasLength,
      { maximum: count },
    )
    copy.maxItems = this.maxItems === undefined ? count : Math.min(this.maxItems, count)
    return copy
  }

  jsonSchema(io: Io): JsonSchema {
    return {
      ...(this.minItems === undefined ? {} : { minItems: this.minItems }),
      ...(this.maxItems === undefined ? {} : { maxItems: this.maxItems }),
      type: 'array',
      items: describedJson(this.item, io),
    }
  }
}

/** An object used as a map: every own key checked by one schema, every value by another. */
export class ZodRecord<Key extends ZodType<string, string>, Value extends AnySchema> extends ZodType<
  Record<output<Key>, output<Value>>,
  Record<string, Value['_input']>
> {
  readonly key: Key
  readonly value: Value

  constructor(key: Key, value: Value) {
    super()
    this.key = key
    this.value = value
  }

  protected parseOwn(payload: Payload): Payload {
    const input = payload.value
    if (!isObject(input) || (Object.getPrototypeOf(input) !== Object.prototype && Object.getPrototypeOf(input) !== null)) {
      payload.issues.push(invalidType('record', input))
      return payload
    }
    const value: Record<string, unknown> = {}
    for (const key of Object.keys(input)) {
      if (key === '__proto__') continue
      const keyResult = this.key.run({ value: key, issues: [] })
      if (keyResult.issues.length) {
        payload.issues.push({ code: 'invalid_key', path: [key], message: 'Invalid key in record' })
        continue
      }
      const result = this.value.run({ value: input[key], issues: [] })
      payload.issues.push(...prefixed(key, result.issues))
      value[keyResult.value as string] = result.value
    }
    payload.value = value
    return payload
  }

  jsonSchema(io: Io): JsonSchema {
    return { type: 'object', propertyNames: describedJson(this.key, io), additionalProperties: describedJson(this.value, io) }
  }
}

/**
 * The first option that takes the value. None: when exactly one option got past its type
 * (its issues are checks that continue), its issues, which say more; otherwise "Invalid input".
 */
export class ZodUnion<Options extends readonly AnySchema[]> extends ZodType<output<Options[number]>, Options[number]['_input']> {
  readonly options: Options

  constructor(options: Options) {
    super()
    this.options = options
  }

  override get optin(): Optin {
    if (this.options.some((option) => option.optin === 'defaulted')) return 'defaulted'
    return this.options.some((option) => option.optin !== undefined) ? 'optional' : undefined
  }

  override get optout(): 'optional' | undefined {
    return this.options.some((option) => option.optout === 'optional') ? 'optional' : undefined
  }

  protected parseOwn(payload: Payload): Payload {
    // One option: the union is that option, issues and all.
    if (this.options.length === 1) return this.options[0]!.run(payload)
    const results = this.options.map((option) => option.run({ value: payload.value, issues: [] }))
    const taken = results.find((result) => result.issues.length === 0)
    if (taken) {
      payload.value = taken.value
      return payload
    }
    const typed = results.filter((result) => !aborted(result))
    if (typed.length === 1) {
      payload.value = typed[0]!.value
      payload.issues.push(...typed[0]!.issues)
      return payload
    }
    payload.issues.push({ code: 'invalid_union', path: [], message: 'Invalid input' })
    return payload
  }

  jsonSchema(io: Io): JsonSchema {
    return { anyOf: this.options.map((option) => describedJson(option, io)) }
  }
}
