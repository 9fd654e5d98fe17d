import t from 'tap'
import * as z from '../../../../lib/kernel/schema/index.ts'

/** Each issue as "path: message" (path dotted), in the order reported; [] when the value is taken. */
function problems(schema: z.ZodType<any, any>, value: unknown): string[] {
  const result = schema.safeParse(value)
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
}

t.test('types and their messages (the wording operators read in config errors)', async (t) => {
  t.same(problems(z.string(), 1), [': Invalid input: expected string, received number'])
  t.same(problems(z.number(), '1'), [': Invalid input: expected number, received string'])
  t.same(problems(z.number(), Number.NaN), [': Invalid input: expected number, received NaN'])
  t.same(problems(z.number(), Infinity), [': Invalid input: expected number, received Infinity'])
  t.same(problems(z.boolean(), null), [': Invalid input: expected boolean, received null'])
  t.same(problems(z.strictObject({}), []), [': Invalid input: expected object, received array'])
  t.same(problems(z.array(z.string()), {}), [': Invalid input: expected array, received object'])
  t.same(problems(z.record(z.string(), z.number()), new Date(0)), [': Invalid input: expected record, received Date'])
  t.same(problems(z.enum(['a', 'b']), 'c'), [': Invalid option: expected one of "a"|"b"'])
  t.same(problems(z.literal('a'), 'b'), [': Invalid input: expected "a"'])
  t.same(problems(z.literal(2), 3), [': Invalid input: expected 2'])
  t.same(problems(z.number().int(), 1.5), [': Invalid input: expected int, received number'])
  t.same(problems(z.number().int(), 2 ** 60), [': Too big: expected int to be <=9007199254740991'])
  t.same(problems(z.number().min(1), 0), [': Too small: expected number to be >=1'])
  t.same(problems(z.number().max(5), 6), [': Too big: expected number to be <=5'])
  t.same(problems(z.string().min(2), 'a'), [': Too small: expected string to have >=2 characters'])
  t.same(problems(z.string().max(1), 'ab'), [': Too big: expected string to have <=1 characters'])
  t.same(problems(z.array(z.number()).min(1), []), [': Too small: expected array to have >=1 items'])
  t.same(problems(z.array(z.number()).max(1), [1, 2]), [': Too big: expected array to have <=1 items'])
  t.same(problems(z.string().regex(/^a$/), 'b'), [': Invalid string: must match pattern /^a$/'])
  t.same(problems(z.string().regex(/^a$/, 'an a'), 'b'), [': an a'])
  t.same(problems(z.url(), 'not a url'), [': Invalid URL'])
  t.same(problems(z.iso.datetime({ offset: true }), '2026-11-26'), [': Invalid ISO datetime'])
  t.same(problems(z.strictObject({ a: z.number() }), { a: 1, b: 2, c: 3 }), [': Unrecognized keys: "b", "c"'])
  t.same(
    problems(
      z.string().refine(() => false),
      'x',
    ),
    [': Invalid input'],
  )
})

t.test('checks run in order, all of them, until an issue that stops them', async (t) => {
  t.same(problems(z.string().max(2).regex(/^\d+$/), 'abc'), [
    ': Too big: expected string to have <=2 characters',
    ': Invalid string: must match pattern /^\\d+$/',
  ])
  t.same(problems(z.number().int().min(1).max(5), 7.5), [': Invalid input: expected int, received number'], 'not an integer: min and max skipped')
  t.same(problems(z.number().int().min(1).max(5), 0), [': Too small: expected number to be >=1'])
  let refined = 0
  const counted = z
    .string()
    .min(3)
    .refine(() => (refined++, true))
  t.same(problems(counted, 'ab'), [': Too small: expected string to have >=3 characters'])
  t.equal(refined, 1, 'a refinement still runs after a check that continues')
  t.same(problems(counted, 5), [': Invalid input: expected string, received number'])
  t.equal(refined, 1, 'but never on a value of the wrong type')
  t.same(
    problems(z.string().min(1).regex(/a/), []),
    [': Invalid input: expected string, received array', ': Too small: expected array to have >=1 items'],
    'a length check measures anything with a length',
  )
  t.same(problems(z.array(z.string()).max(1), { length: 5 }), [': Invalid input: expected array, received object', ': Too big: expected unknown to be <=1'])
  // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
  t.same(problems(z.array(z.number()), [, 1]), ['0: Invalid input: expected number, received undefined'], 'a hole is an element')
  t.same(
    problems(z.string(), Object.assign(Object.create(null), { constructor: 1 })),
    [': Invalid input: expected string, received undefined'],
    "a foreign object's type is its constructor's name",
  )
})

t.test('objects: every key in declared order, unknown keys after, refinements only on a whole shape', async (t) => {
  const plan = z.strictObject({ a: z.number().int(), b: z.string().min(1), c: z.boolean().optional() }).superRefine((value, context) => {
    if (value.a > 10) context.addIssue({ code: 'custom', path: ['a'], message: 'a is over 10' })
  })
  t.same(plan.parse({ a: 1, b: 'x' }), { a: 1, b: 'x' }, 'an absent optional key stays absent')
  t.same(plan.parse({ a: 1, b: 'x', c: undefined }), { a: 1, b: 'x', c: undefined })
  t.same(problems(plan, { b: '', a: 'x', d: 1 }), [
    'a: Invalid input: expected number, received string',
    'b: Too small: expected string to have >=1 characters',
    ': Unrecognized key: "d"',
  ])
  t.same(
    problems(plan, { a: 11, b: '' }),
    ['b: Too small: expected string to have >=1 characters', 'a: a is over 10'],
    'continuing issues inside: the refinement runs',
  )
  t.same(problems(plan, { a: 11, b: 'x', d: 1 }), [': Unrecognized key: "d"', 'a: a is over 10'], 'an unknown key does not stop it')
  t.same(z.object({ a: z.number() }).parse({ a: 1, other: 2 }), { a: 1 }, 'a plain object drops other keys')
  t.same(z.strictObject({ a: z.number(), b: z.string() }).partial().parse({}), {})
  t.same(z.strictObject({ a: z.number(), b: z.string() }).pick({ b: true }).parse({ b: 'x' }), { b: 'x' })
  t.same(problems(z.array(z.strictObject({ n: z.number() })), [{ n: 1 }, { n: 'x' }]), ['1.n: Invalid input: expected number, received string'])
  t.same(z.record(z.string(), z.number()).parse({ a: 1, b: 2 }), { a: 1, b: 2 })
  t.same(problems(z.record(z.string(), z.number()), { a: 'x' }), ['a: Invalid input: expected number, received string'])
})

t.test('default, prefault, optional, nullable', async (t) => {
  const list = z.array(z.number().min(5)).default([1])
  t.same(list.parse(undefined), [1], 'a default is not parsed (zod 4)')
  t.not(list.parse(undefined), list.parse(undefined), 'and each is a copy')
  const section = z.strictObject({ n: z.number().default(3) })
  t.same(section.prefault({}).parse(undefined), { n: 3 }, 'a prefault is parsed')
  t.same(section.default({ n: 4 }).parse(undefined), { n: 4 })
  t.equal(z.string().nullable().parse(null), null)
  t.same(problems(z.string().nullable(), undefined), [': Invalid input: expected string, received undefined'])
  t.equal(z.string().optional().parse(undefined), undefined)
  t.same(problems(z.string().optional(), null), [': Invalid input: expected string, received null'])
})

t.test('transforms run on a value without issues only; unions take the first that fits', async (t) => {
  let ran = 0
  const digits = z
    .string()
    .regex(/^\d+$/)
    .transform((text) => (ran++, Number(text)))
  t.equal(digits.parse('12'), 12)
  t.same(problems(digits, 'x'), [': Invalid string: must match pattern /^\\d+$/'])
  t.equal(ran, 1)
  const positive = z.union([z.number().int().min(1), digits])
  t.equal(positive.parse(3), 3)
  t.equal(positive.parse('4'), 4)
  t.same(problems(positive, 0), [': Too small: expected number to be >=1'], 'one option got past its type: its issues')
  t.same(problems(positive, 'x'), [': Invalid input'], 'a transform that did not run counts as stopped')
  t.same(problems(positive, true), [': Invalid input'])
  t.equal(z.union([z.string(), z.number()]).transform(String).parse(5), '5')
  t.equal(z.url().parse('  http://a.example/  '), 'http://a.example/', 'a URL is trimmed')
})

t.test('parse throws the issues; schemas are immutable', async (t) => {
  t.throws(() => z.number().parse('x'), { name: 'SchemaError', message: 'Invalid input: expected number, received string' })
  const base = z.number()
  base.min(5)
  base.describe('described')
  t.equal(base.parse(1), 1)
  t.equal(base.description, undefined)
})
