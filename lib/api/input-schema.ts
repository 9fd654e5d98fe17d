// One schema per input. Each field is a schema (lib/kernel/schema) that both parses the
// value (with the error kind of the endpoint for each failure) and documents it:
// z.toJSONSchema gives the OpenAPI parameter or body property, so the document says exactly
// what the parser takes.
// Fields are checked in the order they are declared; the first problem is the answer.
import * as z from '../kernel/schema/index.ts'
import { lazyRecord } from './lazy-record.ts'
import type { JsonSchema, ParamDoc } from './function-config.ts'
import { DomainError, type ErrorKind } from '../kernel/errors.ts'

/**
 * Longest query value accepted for any parameter (docs/api.md, "Inputs and the OpenAPI document"), enforced by QueryInput and
 * advertised as `limits.paramLength` in the capabilities. Path values are a name or a UUID,
 * whose patterns are shorter.
 */
export const maxParamLength = 256

/** The error kind of a value the schema refused (a function when it depends on the value). */
export type KindOf = ErrorKind | ((value: unknown) => ErrorKind)

export interface Field<T, Present extends boolean = boolean> {
  schema: z.ZodType<T, any>
  invalid: KindOf
  /** Absent: this error (a required field). */
  missing?: ErrorKind
  /** Absent: this value. */
  fallback?: T
  description: string
  /** The message of the error, when it names the field (a function when it depends on the value). */
  message?: string | ((value: unknown) => string | undefined)
  /** Type-level only: whether the parsed value is always there. */
  present?: Present
}

interface FieldOptions {
  invalid: KindOf
  description: string
  message?: string | ((value: unknown) => string | undefined)
}

export function optional<T>(schema: z.ZodType<T, any>, options: FieldOptions): Field<T, false> {
  return { schema, ...options }
}

export function required<T>(schema: z.ZodType<T, any>, options: FieldOptions & { missing: ErrorKind }): Field<T, true> {
  return { schema, ...options }
}

export function withDefault<T>(schema: z.ZodType<T, any>, fallback: T, options: FieldOptions): Field<T, true> {
  return { schema, fallback, ...options }
}

type Fields = Record<string, Field<any>>
export type Values<F extends Fields> = {
  [K in keyof F]: F[K] extends Field<infer T, infer P> ? (P extends true ? T : T | undefined) : never
}

/** The error of a value the field refused (or of its absence: value undefined). */
function refusal(field: Field<unknown>, value: unknown, kind: ErrorKind): DomainError {
  return new DomainError(kind, typeof field.message === 'function' ? field.message(value) : field.message)
}

function read<T>(field: Field<T>, value: unknown): T | undefined {
  if (value === undefined) {
    if (field.missing) throw refusal(field, value, field.missing)
    return field.fallback
  }
  const parsed = field.schema.safeParse(value)
  if (parsed.success) return parsed.data
  throw refusal(field, value, typeof field.invalid === 'function' ? field.invalid(value) : field.invalid)
}

/** The JSON Schema of what a field accepts (its input side), for the document. */
export function jsonSchemaOf(field: Pick<Field<unknown>, 'schema' | 'description' | 'fallback'>): JsonSchema {
  const { $schema: _, ...schema } = z.toJSONSchema(field.schema, { io: 'input' }) as JsonSchema
  return { ...schema, description: field.description, ...(field.fallback === undefined ? {} : { default: field.fallback }) }
}

/** The JSON Schema of a whole body a domain schema parses (its input side, for the document). */
export function bodySchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema
  return json
}

/** Query parameters: text values; one over 256 characters is refused like any bad value. */
export class QueryInput<F extends Fields> {
  readonly fields: F

  constructor(fields: F) {
    this.fields = fields
  }

  parse(query: URLSearchParams): Values<F> {
    const values: Record<string, unknown> = {}
    for (const key in this.fields) {
      const field = this.fields[key]
      const text = query.get(key)
      if (text !== null && text.length > maxParamLength) {
        throw refusal(field, text, typeof field.invalid === 'function' ? field.invalid(text) : field.invalid)
      }
      values[key] = read(field, text ?? undefined)
    }
    return values as Values<F>
  }

  /** The OpenAPI parameters (config.query), each made when first read. */
  params(): Record<string, ParamDoc> {
    return lazyRecord(Object.keys(this.fields), (key) => {
      const field = this.fields[key]
      const { description, ...schema } = jsonSchemaOf(field)
      return { description: description as string, schema, ...(field.missing ? { required: true } : {}) }
    })
  }
}

/** Keys refused at any depth of a body (lib/api/value-parsers.ts, parseJsonObject). */
export const unsafeKeyPattern = '^\\$|^(?:__proto__|constructor|prototype)$'

/** The document's schema of any JSON value whose objects, at any depth, have only safe keys (lib/openapi/schemas.ts). */
export const safeJsonValueRef = '#/components/schemas/SafeJsonValue'

/**
 * A JSON object body: null counts as absent (unless the endpoint has always refused it:
 * nullIsAbsent false); other keys are ignored (but must be safe).
 */
export class BodyInput<F extends Fields> {
  readonly fields: F
  readonly #nullIsAbsent: boolean

  constructor(fields: F, options: { nullIsAbsent?: boolean } = {}) {
    this.fields = fields
    this.#nullIsAbsent = options.nullIsAbsent ?? true
  }

  parse(body: Record<string, unknown>): Values<F> {
    const values: Record<string, unknown> = {}
    for (const key in this.fields) {
      const value = Object.hasOwn(body, key) ? body[key] : undefined
      values[key] = read(this.fields[key], this.#nullIsAbsent ? (value ?? undefined) : value)
    }
    return values as Values<F>
  }

  /** The request body's JSON Schema (config.body); each property's made when first read. */
  schema(): JsonSchema {
    const requiredKeys = Object.keys(this.fields).filter((key) => this.fields[key].missing)
    const properties = lazyRecord(Object.keys(this.fields), (key) => {
      const field = this.fields[key]
      const schema = jsonSchemaOf(field)
      if (field.missing || !this.#nullIsAbsent) return schema
      // null is read as absent.
      const { description, default: fallback, ...accepted } = schema
      return { anyOf: [accepted, { type: 'null' }], description, ...(fallback === undefined ? {} : { default: fallback }) }
    })
    return {
      type: 'object',
      ...(requiredKeys.length ? { required: requiredKeys } : {}),
      properties,
      propertyNames: { not: { pattern: unsafeKeyPattern } },
      // Other keys are ignored, but their values are read for unsafe keys too: the same rule
      // at every depth, through a recursive schema. Only the depth limit is words.
      additionalProperties: { $ref: safeJsonValueRef },
      description:
        'A JSON object (an empty body counts as {}); other keys are ignored. Keys starting with $ and ' +
        '__proto__, constructor, prototype are refused at any depth, as is nesting deeper than 32 levels (-31).',
    }
  }
}
