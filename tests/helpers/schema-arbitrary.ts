// fast-check values from a JSON Schema (the subset the OpenAPI document uses for inputs:
// type, enum, const, pattern, maxLength, minimum/maximum, anyOf/oneOf, arrays and objects), and near misses:
// values an input schema may or may not accept, for checking a document against a server.
import fc from 'fast-check'

export type Schema = Record<string, any>

export function valuesOf(schema: Schema): fc.Arbitrary<unknown> {
  const branches = schema.anyOf ?? schema.oneOf
  if (branches) return fc.oneof(...branches.map((branch: Schema) => valuesOf(branch)))
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  switch (schema.type) {
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true })
    case 'array':
      // A few items: enough to reach every item rule, small enough to stay under the body limit.
      return fc.array(schema.items ? valuesOf(schema.items) : fc.constant(null), { maxLength: Math.min(schema.maxItems ?? 4, 4) })
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      return fc.record(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, valuesOf(v)])), { requiredKeys: schema.required ?? [] })
    }
    case 'string': {
      const text = schema.pattern ? fc.stringMatching(new RegExp(schema.pattern)) : fc.string()
      return schema.maxLength === undefined ? text : text.filter((s) => s.length <= schema.maxLength)
    }
  }
  throw new Error(`no generator for ${JSON.stringify(schema)}`)
}

const edgeTexts = [
  '',
  ' ',
  '0',
  '00',
  '-1',
  '+1',
  '1.5',
  '1e3',
  '1E2',
  '0x10',
  ' 1',
  '1 ',
  '2147483647',
  '2147483648',
  '02147483647',
  '9999999999',
  '99999999999',
  '100',
  '101',
  '0100',
  '1000',
  'true',
  'false',
  'TRUE',
  'null',
  'TO_GO',
  'to_go',
  'ON_PREMISES',
  'ON_PREMISE ',
  '2024-02-29T12:00:00',
  '2023-02-29T12:00:00',
  '1900-02-29T00:00:00',
  '2000-02-29T00:00:00',
  '0099-12-31T23:59:59',
  '0100-01-01T00:00:00',
  '2026-11-22 10:00:00',
  '2026-11-22T10:00:00Z',
  '2026-11-22T10:00:00+02:00',
  '2026-11-22T24:00:00',
  '2026-13-01T00:00:00',
  '2026-11-22T10:00',
  '0.0',
  '0.000001',
  '0.0000001',
  '000000000.5',
  '999999999.999999',
  '1000000000',
  '6f9619ff-8b86-d011-b42d-00c04fc964ff',
  '6F9619FF-8B86-D011-B42D-00C04FC964FF',
  '6f9619ff8b86d011b42d00c04fc964ff',
]

/** Mutations of a valid text: one character changed, added or removed, or surrounded. */
function mutated(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const chars = fc.constantFrom(...'0123456789-:T Z+.eE/a'.split(''))
  return fc.tuple(base, fc.nat(), chars, fc.constantFrom('replace', 'insert', 'delete', 'prefix0', 'suffix')).map(([text, at, char, how]) => {
    const i = text.length ? at % text.length : 0
    if (how === 'replace') return text.slice(0, i) + char + text.slice(i + 1)
    if (how === 'insert') return text.slice(0, i) + char + text.slice(i)
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1)
    if (how === 'prefix0') return `0${text}`
    return text + char
  })
}

/** Texts near what the schema accepts (for query and path values). */
export function nearTexts(schema: Schema): fc.Arbitrary<string> {
  const valid = valuesOf(schema).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
  return fc.oneof(valid, mutated(valid), fc.constantFrom(...edgeTexts), fc.string({ maxLength: 12 }), fc.integer().map(String))
}

/** JSON values near what the schema accepts (for body properties). */
export function nearValues(schema: Schema): fc.Arbitrary<unknown> {
  return fc.oneof(
    valuesOf(schema),
    nearTexts(schema),
    fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 31, 2 ** 31 - 1, 1e3, 12.0, [], {}, [1]),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  )
}
