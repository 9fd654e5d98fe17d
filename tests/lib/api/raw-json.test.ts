import t from 'tap'
import { RawJson, serializeEnvelope } from '../../../lib/api/raw-json.ts'

t.test('top-level RawJson values are spliced in as they are', async (t) => {
  const body = { status: 200, returnCode: 5, count: 2, items: new RawJson('[{"a":1},{"b":"x"}]'), skipped: undefined }
  const text = serializeEnvelope(body)
  t.equal(text, '{"status":200,"returnCode":5,"count":2,"items":[{"a":1},{"b":"x"}]}')
  t.same(JSON.parse(text), JSON.parse(JSON.stringify(body)), 'same document as JSON.stringify would give')
})

t.test('without RawJson it is JSON.stringify; nested RawJson still serialises correctly', async (t) => {
  t.equal(serializeEnvelope({ a: 1, b: [2] }), '{"a":1,"b":[2]}')
  t.equal(serializeEnvelope({ nested: { list: new RawJson('[3]') } }), '{"nested":{"list":[3]}}')
})
