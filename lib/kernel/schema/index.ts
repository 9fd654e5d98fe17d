// The schema library, used as a namespace (`import * as z from '../kernel/schema/index.ts'`)
// with zod 4's names for what the gateway uses, so a schema reads as it did with zod.
import { type Shape, ZodArray, ZodObject, ZodRecord, ZodUnion } from './composites.ts'
import { ZodBoolean, ZodNumber, ZodString, ZodValues } from './primitives.ts'
import { compactTypeUnions } from './compact.ts'
import { type AnySchema, describedJson, type Io, type JsonSchema } from './schema.ts'

export { ZodType, SchemaError } from './schema.ts'
export type { Issue } from './issues.ts'
export type { output as infer } from './schema.ts'

export const string = (): ZodString => new ZodString()
export const number = (): ZodNumber => new ZodNumber()
export const boolean = (): ZodBoolean => new ZodBoolean()
export const url = (): ZodString => new ZodString().url()
export const iso = { datetime: (options?: { offset?: boolean }): ZodString => new ZodString().datetime(options) }

export function enumOf<const T extends readonly [string, ...string[]]>(values: T): ZodValues<T[number]> {
  return new ZodValues(values, false)
}
export { enumOf as enum }

export function literal<const T extends string | number | boolean | null>(value: T): ZodValues<T> {
  return new ZodValues([value], true)
}

export function object<S extends Shape>(shape: S): ZodObject<S> {
  return new ZodObject(shape, false)
}

export function strictObject<S extends Shape>(shape: S): ZodObject<S> {
  return new ZodObject(shape, true)
}

export function array<Item extends AnySchema>(item: Item): ZodArray<Item> {
  return new ZodArray(item)
}

export function record<Key extends ZodString, Value extends AnySchema>(key: Key, value: Value): ZodRecord<Key, Value> {
  return new ZodRecord(key, value)
}

export function union<const Options extends readonly [AnySchema, ...AnySchema[]]>(options: Options): ZodUnion<Options> {
  return new ZodUnion(options)
}

/** The JSON Schema (draft 2020-12) of what a schema takes (io: input) or gives. */
export function toJSONSchema(schema: AnySchema, options: { io?: Io } = {}): JsonSchema {
  return compactTypeUnions({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...describedJson(schema, options.io ?? 'output') })
}
