// A schema parses an unknown value into a typed one, or says what is wrong with it, and
// describes what it accepts as JSON Schema (for the OpenAPI document). The API is the part
// of zod 4's that the gateway used, with the same results: zod was a fifth of the gateway's
// modules and about 6 MB of its idle memory (docs/decisions/0001-schemas-without-zod.md).
//
// Parsing follows zod's rules: a value is first checked for its type, then by the schema's
// checks in the order they were added (min, max, regex, refine); a check is skipped once an
// issue that does not continue was found (a wrong type, a value not in an enum), so a
// refinement only ever sees a value of the right shape, except that a length check measures
// anything with a length. A transform runs only on a value without issues.
import { aborted, custom, refusedOutright, type Issue, type Payload, type PathSegment } from './issues.ts'

export type JsonSchema = Record<string, unknown>

/** Whether the JSON Schema describes what a schema takes (input) or gives (output). */
export type Io = 'input' | 'output'

/** Thrown by parse(); safeParse() returns the same issues. */
export class SchemaError extends Error {
  readonly issues: Issue[]
  constructor(issues: Issue[]) {
    super(issues.map((issue) => `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`).join('; '))
    this.name = 'SchemaError'
    this.issues = issues
  }
}

export type SafeParseResult<T> = { success: true; data: T; error?: undefined } | { success: false; data?: undefined; error: SchemaError }

export interface RefinementContext {
  addIssue(issue: { code: 'custom'; message: string; path?: PathSegment[] }): void
}

/**
 * A check; one with `when` runs whenever that says so, even after an issue that stops the
 * others, unless an issue stopped the value outright (an array over its size cap: composites.ts).
 * `size`: a length check (min or max); `maximum`: the length a max check allows.
 */
export type Check = ((payload: Payload) => void) & { when?: (payload: Payload) => boolean; size?: { maximum?: number } }

/** How a key holding this schema may be absent: optional (absent stays absent) or defaulted. */
export type Optin = 'optional' | 'defaulted' | undefined

export abstract class ZodType<Out = unknown, In = unknown> {
  declare readonly _output: Out
  declare readonly _input: In
  protected readonly checks: Check[] = []
  /** What the JSON Schema says besides the type (a description, a format): describe(), meta(). */
  metadata: JsonSchema | undefined

  get description(): string | undefined {
    return this.metadata?.description as string | undefined
  }

  /** The value's own parse (type, elements, keys), before the checks. */
  protected abstract parseOwn(payload: Payload): Payload

  /** What a JSON Schema says of this schema alone (without its metadata). */
  abstract jsonSchema(io: Io): JsonSchema

  /** Whether an object's key holding this schema may be absent from the input. */
  get optin(): Optin {
    return undefined
  }

  /** Whether an object's key holding this schema may be absent from the output. */
  get optout(): 'optional' | undefined {
    return undefined
  }

  run(payload: Payload): Payload {
    const parsed = this.parseOwn(payload)
    let stopped = aborted(parsed)
    const refused = this.checks.length > 0 && refusedOutright(parsed)
    for (const check of this.checks) {
      if (check.when ? refused || !check.when(parsed) : stopped) continue
      const before = parsed.issues.length
      check(parsed)
      if (!stopped && parsed.issues.length > before) stopped = aborted(parsed, before)
    }
    return parsed
  }

  safeParse(input: unknown): SafeParseResult<Out> {
    const result = this.run({ value: input, issues: [] })
    if (result.issues.length === 0) return { success: true, data: result.value as Out }
    return { success: false, error: new SchemaError(result.issues.map(({ continue: _, ...issue }) => issue)) }
  }

  parse(input: unknown): Out {
    const result = this.safeParse(input)
    if (!result.success) throw result.error
    return result.data
  }

  /**
   * A copy of this schema (same class, same fields) with some fields changed: schemas are
   * immutable, as zod's are, since a base is shared. Its fields are public for that, no
   * private ones (Object.assign cannot copy those).
   */
  protected copyWith(changes: object): this {
    return Object.assign(Object.create(Object.getPrototypeOf(this)) as this, this, changes)
  }

  /** A copy with one more check. */
  protected withCheck(check: (payload: Payload) => void, when?: (payload: Payload) => boolean, size?: { maximum?: number }): this {
    const added: Check = Object.assign(check, when ? { when } : {}, size ? { size } : {})
    return this.copyWith({ checks: [...this.checks, added] })
  }

  describe(description: string): this {
    return this.meta({ description })
  }

  meta(metadata: JsonSchema): this {
    return this.copyWith({ metadata: { ...this.metadata, ...metadata } })
  }

  refine(test: (value: Out) => unknown, options?: string | { message?: string; path?: PathSegment[] }): this {
    const message = typeof options === 'string' ? options : options?.message
    const path = typeof options === 'string' ? [] : (options?.path ?? [])
    return this.withCheck((payload) => {
      if (!test(payload.value as Out)) payload.issues.push(custom(message, path))
    })
  }

  superRefine(refinement: (value: Out, context: RefinementContext) => void): this {
    return this.withCheck((payload) => {
      refinement(payload.value as Out, { addIssue: ({ message, path }) => payload.issues.push(custom(message, path ?? [])) })
    })
  }

  optional(): ZodOptional<Out, In> {
    return new ZodOptional(this)
  }

  nullable(): ZodNullable<Out, In> {
    return new ZodNullable(this)
  }

  default(value: NoUndefined<Out>): ZodDefault<Out, In> {
    return new ZodDefault(this, value)
  }

  /** Absent: this input instead, parsed as any other (unlike default()). */
  prefault(value: In): ZodPrefault<Out, In> {
    return new ZodPrefault(this, value)
  }

  transform<Next>(transform: (value: Out) => Next): ZodPipe<In, Out, Next> {
    return new ZodPipe(this, transform)
  }
}

type NoUndefined<T> = T extends undefined ? never : T

export type AnySchema = ZodType<any, any>
export type output<T extends AnySchema> = T['_output']
export type input<T extends AnySchema> = T['_input']

/** The schema's JSON Schema with its metadata (a description, a format), as the document shows it. */
export function describedJson(schema: AnySchema, io: Io): JsonSchema {
  const json = schema.jsonSchema(io)
  return schema.metadata === undefined ? json : { ...json, ...schema.metadata }
}

/** A schema around another (optional, nullable, default, prefault, transform). */
abstract class ZodWrapper<Out, In, InnerOut, InnerIn> extends ZodType<Out, In> {
  readonly inner: ZodType<InnerOut, InnerIn>
  constructor(inner: ZodType<InnerOut, InnerIn>) {
    super()
    this.inner = inner
  }
}

export class ZodOptional<Out, In> extends ZodWrapper<Out | undefined, In | undefined, Out, In> {
  override get optin(): Optin {
    return this.inner.optin === 'defaulted' ? 'defaulted' : 'optional'
  }
  override get optout(): 'optional' {
    return 'optional'
  }
  /** Absent stays absent, unless the inner schema stands in a value (a default): then that, or absent if it fails. */
  protected parseOwn(payload: Payload): Payload {
    if (payload.value !== undefined) return this.inner.run(payload)
    if (this.inner.optin !== 'defaulted') return payload
    const result = this.inner.run({ value: undefined, issues: [] })
    payload.value = result.issues.length ? undefined : result.value
    return payload
  }
  jsonSchema(io: Io): JsonSchema {
    return describedJson(this.inner, io)
  }
}

export class ZodNullable<Out, In> extends ZodWrapper<Out | null, In | null, Out, In> {
  override get optin(): Optin {
    return this.inner.optin
  }
  override get optout(): 'optional' | undefined {
    return this.inner.optout
  }
  protected parseOwn(payload: Payload): Payload {
    return payload.value === null ? payload : this.inner.run(payload)
  }
  jsonSchema(io: Io): JsonSchema {
    return { anyOf: [describedJson(this.inner, io), { type: 'null' }] }
  }
}

/** Absent (undefined): the default value, not parsed (zod 4's rule); a copy of it when an object or array. */
export class ZodDefault<Out, In> extends ZodWrapper<NoUndefined<Out>, In | undefined, Out, In> {
  readonly fallback: unknown
  constructor(inner: ZodType<Out, In>, value: unknown) {
    super(inner)
    this.fallback = value
  }
  get defaultValue(): unknown {
    const value = this.fallback
    if (Array.isArray(value)) return [...value]
    return value !== null && typeof value === 'object' ? { ...value } : value
  }
  override get optin(): Optin {
    return 'defaulted'
  }
  protected parseOwn(payload: Payload): Payload {
    if (payload.value === undefined) {
      payload.value = this.defaultValue
      return payload
    }
    return this.inner.run(payload)
  }
  jsonSchema(io: Io): JsonSchema {
    // The default first: zod wrote a wrapper's own keys before its inner schema's; the
    // outermost default is the one stated (an inner one never applies).
    return { ...{ default: this.fallback }, ...describedJson(this.inner, io), default: this.fallback }
  }
}

export class ZodPrefault<Out, In> extends ZodWrapper<Out, In | undefined, Out, In> {
  readonly fallback: In
  constructor(inner: ZodType<Out, In>, value: In) {
    super(inner)
    this.fallback = value
  }
  override get optin(): Optin {
    return 'defaulted'
  }
  protected parseOwn(payload: Payload): Payload {
    if (payload.value === undefined) payload.value = this.fallback
    return this.inner.run(payload)
  }
  jsonSchema(io: Io): JsonSchema {
    // What an absent value stands for, as input; the output is always the parsed one.
    return io === 'input' ? { ...{ default: this.fallback }, ...describedJson(this.inner, io), default: this.fallback } : describedJson(this.inner, io)
  }
}

/** A schema, then a function of its value: the function runs only on a value without issues. */
export class ZodPipe<In, Mid, Out> extends ZodWrapper<Out, In, Mid, In> {
  // any: a function's parameter would make the class invariant in Mid (a pipe of a
  // string is then not a schema of unknown input), which no caller needs.
  readonly transformer: (value: any) => Out
  constructor(inner: ZodType<Mid, In>, transform: (value: Mid) => Out) {
    super(inner)
    this.transformer = transform
  }
  override get optin(): Optin {
    return this.inner.optin
  }
  protected parseOwn(payload: Payload): Payload {
    const left = this.inner.run(payload)
    if (left.issues.some((issue) => issue.code !== 'unrecognized_keys')) {
      left.aborted = true
      return left
    }
    left.value = this.transformer(left.value as Mid)
    return left
  }
  jsonSchema(io: Io): JsonSchema {
    // What a transform gives cannot be described; what it takes is its schema's.
    return io === 'input' ? describedJson(this.inner, io) : {}
  }
}
