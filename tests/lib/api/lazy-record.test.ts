// lazyRecord: each value made on its first read, once, and the record reads like a plain one.
import t from 'tap'
import { lazyRecord } from '../../../lib/api/lazy-record.ts'

t.test('a value is made when first read, and only once', async (t) => {
  const made: string[] = []
  const record = lazyRecord(['a', 'b'], (key) => (made.push(key), { key }))
  t.same(made, [], 'nothing made up front')
  t.same(record.a, { key: 'a' })
  t.equal(record.a, record.a, 'the same value again')
  t.same(made, ['a'])
  t.same(Object.keys(record), ['a', 'b'], 'every key listed, in order')
})

t.test('entries, JSON and structuredClone see plain values', async (t) => {
  const record = lazyRecord(['x', 'y'], (key) => ({ schema: { type: key === 'x' ? 'string' : 'integer' } }))
  t.same(Object.entries(record), [
    ['x', { schema: { type: 'string' } }],
    ['y', { schema: { type: 'integer' } }],
  ])
  t.equal(JSON.stringify(record), '{"x":{"schema":{"type":"string"}},"y":{"schema":{"type":"integer"}}}')
  t.same(structuredClone(record), { x: { schema: { type: 'string' } }, y: { schema: { type: 'integer' } } })
  t.same(
    Object.getOwnPropertyDescriptor(record, 'x'),
    { value: { schema: { type: 'string' } }, enumerable: true, configurable: true, writable: true },
    'kept as a data property once made',
  )
})
