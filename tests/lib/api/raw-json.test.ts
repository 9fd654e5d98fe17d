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

t.test('an envelope with the same plain values is known again before any text is built (issue 30)', async (t) => {
  const items = new RawJson('[1]')
  const first = encodeEnvelope({ status: 200, returnCode: 5, count: '1', skipped: undefined, items })
  t.equal(first.contentLength, String(first.bytes!.length), 'the length is kept with the bytes')
  t.equal(items.keptFor({ status: 200, returnCode: 5, count: '1', items }), first, 'same values in the same order: the kept answer')
  t.equal(encodeEnvelope({ status: 200, returnCode: 5, count: `${1}`, items }), first, 'equal strings made anew count as the same')
  t.equal(items.keptFor({ status: 200, returnCode: 5, count: '2', items }), undefined, 'a changed value')
  t.equal(items.keptFor({ returnCode: 5, status: 200, count: '1', items }), undefined, 'another order')
  t.equal(items.keptFor({ status: 200, returnCode: 5, count: '1', items, more: null }), undefined, 'one more value')
  t.equal(items.keptFor({ status: 200, returnCode: 5, items }), undefined, 'one value less')
  t.equal(items.keptFor({ status: 200, returnCode: 5, count: '1', other: items }), undefined, 'the list under another key')
  t.equal(
    encodeEnvelope({ status: 200, returnCode: 5, count: '2', items }).text,
    '{"status":200,"returnCode":5,"count":"2","items":[1]}',
    'a changed value: built again',
  )
})

t.test('an envelope holding an object beside the RawJson is always framed from its text', async (t) => {
  const items = new RawJson('[]')
  const meta = { page: 1 }
  const first = encodeEnvelope({ meta, items })
  t.equal(items.keptFor({ meta, items }), undefined, 'no shortcut: the object may have changed')
  meta.page = 2
  t.equal(encodeEnvelope({ meta, items }).text, '{"meta":{"page":2},"items":[]}')
  t.not(encodeEnvelope({ meta, items }), first)
  const answer = new RawJson('[]')
  t.equal(answer.keptFor({ items: answer }), undefined, 'never framed: nothing kept')
  t.equal(answer.framed('{"items":', '}').text, '{"items":[]}')
  t.equal(answer.keptFor({ items: answer }), undefined, 'framed without its envelope: nothing to compare with')
  t.equal(encodeEnvelope({ items: answer }).text, '{"items":[]}')
  t.ok(answer.keptFor({ items: answer }), 'the same frame framed with its envelope: known from now on')
})
