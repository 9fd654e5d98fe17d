import t from 'tap'
import * as z from '../../../../lib/kernel/schema/index.ts'

const input = (schema: z.ZodType<any, any>) => {
  const { $schema, ...json } = z.toJSONSchema(schema, { io: 'input' })
  return json
}

t.test('the JSON Schema of each kind, as the OpenAPI document states it', async (t) => {
  t.equal(z.toJSONSchema(z.string()).$schema, 'https://json-schema.org/draft/2020-12/schema')
  t.same(input(z.string().min(1).max(5).regex(/^a+$/)), { type: 'string', minLength: 1, maxLength: 5, pattern: '^a+$' })
  t.same(input(z.string().regex(/^a/).regex(/b$/)), { type: 'string', allOf: [{ pattern: '^a' }, { pattern: 'b$' }] })
  t.same(input(z.number().int()), { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }, 'an integer is a safe one')
  t.same(input(z.number().int().min(1).max(10)), { type: 'integer', minimum: 1, maximum: 10 })
  t.same(input(z.number().min(0.05)), { type: 'number', minimum: 0.05 })
  t.same(input(z.boolean()), { type: 'boolean' })
  t.same(input(z.enum(['a', 'b'])), { type: 'string', enum: ['a', 'b'] })
  t.same(input(z.literal(3)), { type: 'number', const: 3 })
  t.same(input(z.url()), { type: 'string', format: 'uri' })
  t.match(input(z.iso.datetime({ offset: true })), { type: 'string', format: 'date-time', pattern: /^\^/ })
  t.same(input(z.array(z.string()).min(1).max(3)), { minItems: 1, maxItems: 3, type: 'array', items: { type: 'string' } })
  t.same(input(z.record(z.string(), z.number())), { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'number' } })
  t.same(input(z.union([z.number(), z.string()])), { type: ['number', 'string'] }, 'bare types: one type list')
  t.same(input(z.union([z.number().min(1), z.string()])), { anyOf: [{ type: 'number', minimum: 1 }, { type: 'string' }] })
  t.same(input(z.string().nullable()), { type: ['string', 'null'] })
  t.same(Object.keys(input(z.string().nullable().describe('d'))), ['description', 'type'], 'the type last, as zod wrote it')
  t.same(input(z.number().default(3).describe('three')), { type: 'number', default: 3, description: 'three' })
  t.same(input(z.string().regex(/^\d+$/).transform(Number)), { type: 'string', pattern: '^\\d+$' }, 'a transform: what it takes')
  t.same(input(z.string().meta({ format: 'uri' })), { type: 'string', format: 'uri' })
  t.same(input(z.strictObject({}).prefault({})), { default: {}, type: 'object', properties: {}, additionalProperties: false })
  t.same(Object.keys(input(z.number().default(1))), ['default', 'type'], 'the default first, as zod wrote it')
})

t.test('objects: required keys are those that may not be absent from the input', async (t) => {
  const shape = { a: z.number(), b: z.string().optional(), c: z.boolean().default(true), d: z.string().transform(Number) }
  t.same(input(z.strictObject(shape)), {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'string' }, c: { type: 'boolean', default: true }, d: { type: 'string' } },
    required: ['a', 'd'],
    additionalProperties: false,
  })
  t.same(input(z.object({ a: z.number() })), { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, 'other keys allowed')
  t.same(z.toJSONSchema(z.object({ a: z.number().optional() }), { io: 'output' }), {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { a: { type: 'number' } },
    additionalProperties: false,
  })
})
