import t from 'tap'
import { encodeEnvelope, RawJson } from '../../../lib/api/raw-json.ts'

const serializeEnvelope = (body: Record<string, unknown>) => encodeEnvelope(body).text

t.test('top-level RawJson values are spliced in as they are', async (t) => {
  const body = { status: 200, returnCode: 5, count: 2, items: new RawJson('[{"a":1},{"b":"Zürich"}]'), skipped: undefined, last: new RawJson('true') }
  const text = serializeEnvelope(body)
  t.equal(text, '{"status":200,"returnCode":5,"count":2,"items":[{"a":1},{"b":"Zürich"}],"last":true}')
  t.same(JSON.parse(text), JSON.parse(JSON.stringify(body)), 'same document as JSON.stringify would give')
})

t.test('a RawJson first in the envelope gets no leading comma', async (t) => {
  t.equal(serializeEnvelope({ items: new RawJson('[]'), count: 0 }), '{"items":[],"count":0}')
})

t.test('without RawJson it is JSON.stringify; nested RawJson still serialises correctly', async (t) => {
  t.equal(serializeEnvelope({ a: 1, b: [2] }), '{"a":1,"b":[2]}')
  t.equal(serializeEnvelope({ nested: { list: new RawJson('[3]') } }), '{"nested":{"list":[3]}}')
})

t.test('an answer around the same RawJson is kept while the rest of the envelope is the same', async (t) => {
  const items = new RawJson('[1,2]')
  t.equal(serializeEnvelope({ count: 2, items }), '{"count":2,"items":[1,2]}')
  const kept = items.framed('{"count":2,"items":', '}')
  t.equal(kept.text, '{"count":2,"items":[1,2]}', 'same frame: the kept answer')
  t.equal(items.framed('{"count":2,"items":', '}'), kept, 'the very same object')
  t.equal(kept.bytes?.toString('utf8'), kept.text, 'with its UTF-8 bytes')
  t.equal(serializeEnvelope({ count: 3, items }), '{"count":3,"items":[1,2]}', 'another frame: built again')
  t.equal(serializeEnvelope({ items, count: 3 }), '{"items":[1,2],"count":3}', 'the frame includes the text after it')
})

t.test('bytes come only with a kept answer, and are UTF-8', async (t) => {
  t.equal(encodeEnvelope({ a: 1 }).bytes, undefined, 'no RawJson: nothing kept')
  t.equal(encodeEnvelope({ a: new RawJson('1'), b: new RawJson('2') }).bytes, undefined, 'two RawJson values: nothing kept')
  const answer = encodeEnvelope({ items: new RawJson('["Zürich"]') })
  t.equal(answer.text, '{"items":["Zürich"]}')
  t.equal(answer.bytes?.length, Buffer.byteLength(answer.text), 'ü is two bytes')
})
