// `anyOf: [{type: "string"}, {type: "null"}]` written `type: ["string", "null"]`, as zod
// wrote it (the document's schemas did not change with the library): only where every
// option is a bare type, nested unions folded in; `type` then comes last among the keys.
import type { JsonSchema } from './schema.ts'

/** Keys whose values are data, not schemas: never rewritten. */
const dataKeys = new Set(['default', 'const', 'enum', 'examples'])

export function compactTypeUnions(schema: JsonSchema): JsonSchema {
  for (const [key, value] of Object.entries(schema)) {
    if (dataKeys.has(key) || value === null || typeof value !== 'object') continue
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') compactTypeUnions(item as JsonSchema)
    } else compactTypeUnions(value as JsonSchema)
  }
  const types = bareTypes(schema.anyOf)
  if (types && schema.type === undefined) {
    delete schema.anyOf
    schema.type = types.length === 1 ? types[0] : types
  }
  return schema
}

/** The types of a union whose every option is only a type (after their own compaction). */
function bareTypes(options: unknown): string[] | undefined {
  if (!Array.isArray(options) || options.length === 0) return undefined
  const types: string[] = []
  for (const option of options) {
    const keys = option !== null && typeof option === 'object' ? Object.keys(option) : []
    if (keys.length !== 1 || keys[0] !== 'type') return undefined
    for (const type of [(option as JsonSchema).type].flat()) {
      if (typeof type !== 'string') return undefined
      if (!types.includes(type)) types.push(type)
    }
  }
  return types
}
