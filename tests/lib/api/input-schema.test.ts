import t from 'tap'
import * as z from '../../../lib/kernel/schema/index.ts'
import { BodyInput, jsonSchemaOf, optional, QueryInput, required, withDefault } from '../../../lib/api/input-schema.ts'
import { positiveInt } from '../../../lib/api/fields.ts'
import type { DomainError } from '../../../lib/kernel/errors.ts'

/** The kind and message of the DomainError fn throws. */
const failure = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    return { kind: (error as DomainError).kind, message: (error as DomainError).message }
  }
  return { kind: 'no error', message: '' }
}

const body = new BodyInput({
  name: required(positiveInt, { missing: 'ORDER_NAME_MISSING', invalid: 'ORDER_NAME_INVALID', description: 'number' }),
  flag: withDefault(z.boolean(), true, { invalid: 'TRACKING_INVALID', description: 'flag' }),
  where: optional(positiveInt, {
    invalid: (value) => (value === 0 ? 'LOCATION_INVALID' : 'ORDER_TYPE_INVALID'),
    description: 'where',
    message: 'where is bad',
  }),
})

t.test('a body is read field by field, first problem wins, null is absent', async (t) => {
  t.same(body.parse({ name: '007' }), { name: 7, flag: true, where: undefined })
  t.same(body.parse({ name: 5, flag: false, where: null, other: 1 }), { name: 5, flag: false, where: undefined })
  t.match(
    failure(() => body.parse({})),
    { kind: 'ORDER_NAME_MISSING' },
  )
  t.match(
    failure(() => body.parse({ name: null })),
    { kind: 'ORDER_NAME_MISSING' },
  )
  t.match(
    failure(() => body.parse({ name: 0, flag: 'x' })),
    { kind: 'ORDER_NAME_INVALID' },
    'declared order',
  )
  t.match(
    failure(() => body.parse({ name: 1, where: 0 })),
    { kind: 'LOCATION_INVALID', message: 'where is bad' },
  )
  t.match(
    failure(() => body.parse({ name: 1, where: 'x' })),
    { kind: 'ORDER_TYPE_INVALID' },
  )
  t.match(
    failure(() => body.parse(Object.create({ name: 1 }))),
    { kind: 'ORDER_NAME_MISSING' },
    'own keys only',
  )
})

t.test("a body's schema: required keys, null allowed where absent is, defaults, safe keys", async (t) => {
  const schema = body.schema() as any
  t.same(schema.required, ['name'])
  t.same(schema.properties.name.anyOf[0], { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 })
  t.same(schema.properties.flag, { anyOf: [{ type: 'boolean' }, { type: 'null' }], description: 'flag', default: true })
  t.match(schema.propertyNames.not.pattern, /__proto__/)
})

t.test('query values: over 256 characters is invalid; params document the schema', async (t) => {
  const query = new QueryInput({
    n: optional(
      z
        .string()
        .max(256)
        .regex(/^[0-9]+$/)
        .transform(Number),
      { invalid: 'LIMIT_INVALID', description: 'n' },
    ),
  })
  t.same(query.parse(new URLSearchParams('n=12')), { n: 12 })
  t.same(query.parse(new URLSearchParams('')), { n: undefined })
  t.match(
    failure(() => query.parse(new URLSearchParams(`n=${'1'.repeat(257)}`))),
    { kind: 'LIMIT_INVALID' },
  )
  t.same(query.params(), { n: { description: 'n', schema: { type: 'string', maxLength: 256, pattern: '^[0-9]+$' } } })
  const needed = new QueryInput({
    n: required(z.string(), { missing: 'CALLBACK_MISSING', invalid: (v) => (String(v).length > 256 ? 'CALLBACK_INVALID' : 'LIMIT_INVALID'), description: 'n' }),
  })
  t.match(needed.params(), { n: { required: true } })
  t.match(
    failure(() => needed.parse(new URLSearchParams(`n=${'x'.repeat(300)}`))),
    { kind: 'CALLBACK_INVALID' },
  )
  t.same(jsonSchemaOf({ schema: z.literal('a'), description: 'd', fallback: 'a' }), { type: 'string', const: 'a', description: 'd', default: 'a' })
})

t.test("a route's query and body docs are made when the document reads them, not when the config is built", async (t) => {
  // Each field's JSON Schema reads its description once; counting reads tells when it is made.
  const reads: string[] = []
  const counted = <F extends object>(key: string, field: F) =>
    Object.defineProperty({ ...field }, 'description', { get: () => (reads.push(key), key), enumerable: true })
  const query = new QueryInput({
    a: counted('a', optional(z.string(), { invalid: 'LIMIT_INVALID', description: '' })),
    b: counted('b', optional(z.string(), { invalid: 'LIMIT_INVALID', description: '' })),
  })
  const params = query.params()
  t.same(reads, [], 'nothing made with the config')
  t.same(params.a, { description: 'a', schema: { type: 'string' } })
  t.same(reads, ['a'], 'only the parameter read')
  t.same(Object.keys(params), ['a', 'b'])
  const lazyBody = new BodyInput({ c: counted('c', required(positiveInt, { missing: 'ORDER_NAME_MISSING', invalid: 'ORDER_NAME_INVALID', description: '' })) })
  const schema = lazyBody.schema() as { required: string[]; properties: Record<string, unknown> }
  t.same(schema.required, ['c'], 'required keys known at once')
  t.same(reads, ['a'], 'no property made with the config')
  t.match(schema.properties.c, { description: 'c' })
  t.same(reads, ['a', 'c'])
})
