import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import nedb from '@seald-io/nedb'
import t from 'tap'
import { readDatafile } from '../../../lib/store/datafile-load.ts'
import { Store } from '../../../lib/store/db.ts'

// NeDB itself, persisting to its own file as the gateway's data dirs were written before
// lib/store kept the file (CommonJS: the import is the class).
const Nedb = nedb as unknown as typeof nedb.default

const byId = (docs: object[]) => [...docs].sort((a, b) => String((a as { _id: string })._id).localeCompare((b as { _id: string })._id))

t.test('a file NeDB wrote itself (index lines, updates, deletions, dates) loads to the documents NeDB held', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  const old = new Nedb({ filename: file })
  await old.loadDatabaseAsync()
  await old.ensureIndexAsync({ fieldName: 'name', unique: true })
  await old.ensureIndexAsync({ fieldName: 'gone' })
  await old.removeIndexAsync('gone')
  await old.insertAsync([
    { name: 'a', n: 1 },
    { name: 'b', n: 2, at: new Date(1_700_000_000_000) },
    { name: 'c', n: 3 },
  ])
  await old.updateAsync({ name: 'a' }, { $set: { n: 10 } }, {})
  await old.updateAsync({}, { $inc: { n: 1 } }, { multi: true })
  await old.removeAsync({ name: 'c' }, {})
  const text = readFileSync(file, 'utf8')
  t.match(text, /\$\$indexCreated/, 'the file has index lines')
  t.match(text, /\$\$indexRemoved/)
  t.match(text, /\$\$deleted/, 'and a deletion')
  t.match(text, /\$\$date/, 'and a date')

  const { docs, unreadable } = await readDatafile(file)
  t.equal(unreadable, 0)
  t.same(byId(docs), byId(old.getAllData()), 'what NeDB held')
  t.ok((docs.find((doc) => (doc as { name: string }).name === 'b') as { at: unknown }).at instanceof Date, 'dates revived')

  const things = await new Store({ dataDir: path.dirname(file) }).collection<{ name: string; n: number }>('things', [{ fieldName: 'name', unique: true }])
  t.same(
    (await things.find({}, { name: 1 })).map(({ name, n }) => [name, n]),
    [
      ['a', 11],
      ['b', 3],
    ],
    'the gateway opens it unchanged',
  )
  t.notMatch(readFileSync(file, 'utf8'), /\$\$index|\$\$deleted/, 'rewritten to its live documents')
  await t.rejects(things.insert({ name: 'a', n: 0 }), /unique/, 'indexes are the ones declared in code')
})

t.test('any number of unparsable lines are dropped and counted; a whole last line without its newline is kept', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  writeFileSync(file, ['{"_id":"a","n":1}', '{"_id":"b","n', '{"_id":"b","n":2}', 'garbage', '', '42', '{"_id":"c","n":3}'].join('\n'))
  const { docs, unreadable } = await readDatafile(file)
  t.same(byId(docs), [
    { _id: 'a', n: 1 },
    { _id: 'b', n: 2 },
    { _id: 'c', n: 3 },
  ])
  t.equal(unreadable, 3, 'a torn line, a garbage line and a line that is not a document; empty lines are nothing')
  appendFileSync(file, '\n{"_id":"d","n":')
  t.equal((await readDatafile(file)).unreadable, 4, 'a torn last line')
  writeFileSync(file, '{"_id":"a","n":1}')
  t.same(await readDatafile(file), { docs: [{ _id: 'a', n: 1 }], unreadable: 0 }, 'a file of one line without its newline')
})

t.test('a later line for an _id replaces the document, a $$deleted line removes it, and it can come back', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  const lines = [
    { _id: 'a', n: 1 },
    { _id: 'b', n: 1 },
    { _id: 'a', n: 2 },
    { $$deleted: true, _id: 'b' },
    { $$deleted: true, _id: 'a' },
    { _id: 'a', n: 3 },
    { $$deleted: true, _id: 'never' },
    { n: 'no id: not a document' },
  ]
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
  t.same(await readDatafile(file), { docs: [{ _id: 'a', n: 3 }], unreadable: 0 })
})

t.test('U+2028 and U+2029 inside a document do not end its line', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  const doc = { _id: 'a', name: 'one\u2028two\u2029three' }
  writeFileSync(file, `${JSON.stringify(doc)}\n`)
  t.same(await readDatafile(file), { docs: [doc], unreadable: 0 })
})

t.test('no datafile yet: no documents, and nothing created by reading', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  t.same(await readDatafile(file), { docs: [], unreadable: 0 })
  t.notOk(existsSync(file))
})

t.test('a crash during a first rewrite leaves only things.db~: it becomes the datafile', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  writeFileSync(`${file}~`, '{"_id":"a","n":1}\n')
  t.same(await readDatafile(file), { docs: [{ _id: 'a', n: 1 }], unreadable: 0 })
  t.ok(existsSync(file), 'renamed into place')
  t.notOk(existsSync(`${file}~`))
})

t.test('a things.db~ beside the datafile is an unfinished rewrite: the datafile is read', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  writeFileSync(file, '{"_id":"a","n":1}\n')
  writeFileSync(`${file}~`, '{"_id":"a","n":2}\n{"_id":"b')
  t.same(await readDatafile(file), { docs: [{ _id: 'a', n: 1 }], unreadable: 0 })
})
