import { appendFileSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { Collection, isDuplicateKey, type IndexSpec } from '../../../lib/store/collection.ts'
import { readDatafile } from '../../../lib/store/datafile-load.ts'
import { Datafile, serializeLine } from '../../../lib/store/datafile.ts'
import type { DomainError } from '../../../lib/kernel/errors.ts'
import { StorageHealth } from '../../../lib/store/health.ts'
import { Store } from '../../../lib/store/db.ts'

type Thing = { name: string; n: number }

const enospc = () => Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })

/** A datafile whose next appends, rewrites or fsyncs fail as on a full (or failing) disk. */
class FailingDatafile extends Datafile {
  appends = 0
  rewrites = 0
  syncs = 0

  append(docs: object[]): void {
    if (this.appends-- > 0) {
      // A short write: with several documents the first line whole and a bit of the next,
      // else half of the one line.
      const text = docs.map((doc) => `${serializeLine(doc)}\n`).join('')
      appendFileSync(this.file, text.slice(0, docs.length > 1 ? text.indexOf('\n') + 11 : Math.floor(text.length / 2)))
      throw enospc()
    }
    super.append(docs)
  }

  async rewrite(docs: object[]): Promise<void> {
    if (this.rewrites-- > 0) throw enospc()
    return super.rewrite(docs)
  }

  sync(): Promise<void> {
    if (this.syncs-- > 0) return Promise.reject(Object.assign(new Error('i/o error'), { code: 'EIO' }))
    return super.sync()
  }
}

async function open(t: Test, options: { indexes?: IndexSpec[]; datafile?: (file: string) => Datafile; compactAfterLines?: number } = {}) {
  const dir = t.testdir({})
  const file = path.join(dir, 'things.db')
  const datafile = options.datafile?.(file) ?? new Datafile(file, 1)
  const health = new StorageHealth(dir, undefined)
  const things = await Collection.open<Thing>('things', options.indexes ?? [], { datafile, health, compactAfterLines: options.compactAfterLines })
  return { things, file, datafile, health }
}

const sorted = (docs: object[]) => [...docs].sort((a, b) => ((a as { _id: string })._id < (b as { _id: string })._id ? -1 : 1))
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)

/** Memory and the file's replay hold the same documents. */
async function sameAsFile(t: Test, things: Collection<Thing>, file: string, what: string) {
  t.same(sorted(await things.find({})), sorted((await readDatafile(file)).docs), what)
}

t.test('concurrent writes of every kind: the file replays to exactly what memory holds', async (t) => {
  const { things, file } = await open(t, { indexes: [{ fieldName: 'name' }] })
  let seed = 7
  const random = (below: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % below
  const writes: Promise<unknown>[] = []
  for (let i = 0; i < 400; i++) {
    const name = `t${random(8)}`
    const durability = (['now', 'lazy'] as const)[random(2)]
    const kind = random(5)
    if (kind === 0) writes.push(things.insert({ name, n: i }, { durability }))
    else if (kind === 1) writes.push(things.update({ name }, { $set: { n: i } }, { durability }))
    else if (kind === 2) writes.push(things.update({ name }, { $inc: { n: 1 } }, { multi: true, durability }))
    else if (kind === 3) writes.push(things.update({ name }, { $set: { n: -i } }, { upsert: true, durability }))
    else writes.push(things.remove({ name }, { multi: random(2) === 0, durability }))
  }
  await Promise.all(writes)
  t.ok((await things.count()) > 0)
  await sameAsFile(t, things, file, 'memory = file')
})

t.test('concurrent updates of one document reach the file in call order', async (t) => {
  const { things, file } = await open(t)
  await things.insert({ name: 'a', n: -1 })
  await Promise.all(Array.from({ length: 100 }, (_, n) => things.update({ name: 'a' }, { $set: { n } }, { durability: n % 2 ? 'now' : 'lazy' })))
  t.same(
    lines(file).map((line) => line.n),
    Array.from({ length: 101 }, (_, n) => n - 1),
  )
  t.equal((await things.findOne({ name: 'a' }))!.n, 99)
})

t.test('an update appends the documents it changed, and resolves to how many', async (t) => {
  const { things, file } = await open(t)
  await Promise.all(['a', 'b', 'c'].map((name) => things.insert({ name, n: 0 })))
  const before = lines(file).length
  t.equal(await things.update({ name: 'none' }, { $set: { n: 1 } }), 0, 'no match')
  t.equal(await things.update({ name: 'none' }, { $set: { n: 1 } }, { multi: true }), 0, 'no match, multi')
  t.equal(lines(file).length, before, 'no line for no change')
  t.equal(await things.update({ n: 0 }, { $set: { n: 1 } }), 1, 'one of several matching')
  t.equal(lines(file).length, before + 1)
  t.equal(await things.update({}, { $inc: { n: 10 } }, { multi: true }), 3, 'multi')
  t.same(
    lines(file)
      .slice(-3)
      .map((line) => line.n)
      .sort(),
    [10, 10, 11],
  )
  t.equal(await things.update({ name: 'd' }, { $set: { n: 5 } }, { upsert: true, multi: true }), 1, 'an upsert that inserts')
  t.match(lines(file).at(-1), { name: 'd', n: 5, _id: String })
  t.equal(await things.update({ name: 'd' }, { name: 'd', n: 6 }, { upsert: true }), 1, 'an upsert that replaces')
  t.match(lines(file).at(-1), { name: 'd', n: 6 })
  await sameAsFile(t, things, file, 'memory = file')
})

t.test('a remove appends a $$deleted line for each document it removed', async (t) => {
  const { things, file } = await open(t)
  const [a, b] = await Promise.all([things.insert({ name: 'x', n: 1 }), things.insert({ name: 'x', n: 2 }), things.insert({ name: 'y', n: 3 })])
  const before = lines(file).length
  t.equal(await things.remove({ name: 'none' }, { multi: true }), 0)
  t.equal(lines(file).length, before, 'no line when nothing matched')
  t.equal(await things.remove({ name: 'x' }), 1, 'one of two matching')
  const [deleted] = lines(file).slice(before)
  t.same(Object.keys(deleted), ['$$deleted', '_id'], "NeDB's deletion line")
  t.equal(deleted.$$deleted, true)
  const remaining = await things.find({ name: 'x' })
  t.equal(remaining.length, 1)
  t.not(deleted._id, remaining[0]._id, 'the line names the one removed')
  t.ok([a._id, b._id].includes(deleted._id as string))
  const left = (await things.find({})).map((doc) => doc._id).sort()
  t.equal(await things.remove({}, { multi: true }), 2, 'multi')
  t.same(
    lines(file)
      .slice(-2)
      .map((line) => [line.$$deleted, line._id])
      .sort(),
    left.map((id) => [true, id]),
  )
  t.same(await readDatafile(file), { docs: [], unreadable: 0 }, 'the file replays to nothing')
})

t.test('a failed append is refused with STORAGE_UNAVAILABLE and leaves memory = file; the next write mends the torn file first', async (t) => {
  const { things, file, datafile, health } = await open(t, { datafile: (file) => new FailingDatafile(file, 1) })
  const failing = datafile as FailingDatafile
  await Promise.all([things.insert({ name: 'a', n: 0 }), things.insert({ name: 'b', n: 0 })])

  failing.appends = 1
  await t.rejects(things.insert({ name: 'c', n: 0 }), { name: 'DomainError', kind: 'STORAGE_UNAVAILABLE' })
  t.equal(await things.count({ name: 'c' }), 0, 'the refused insert is not in memory')
  t.ok(health.failing, 'told to the health monitor')
  await sameAsFile(t, things, file, 'memory = file after a failed insert')

  // Both documents change in memory; the short write puts one whole line in the file.
  failing.appends = 1
  failing.rewrites = 1
  const refused = await things.update({}, { $set: { n: 1 } }, { multi: true }).catch((error: DomainError) => error)
  t.equal((refused as DomainError).kind, 'STORAGE_UNAVAILABLE')
  await sameAsFile(t, things, file, 'memory = file after a failed multi-document update (and a failed repair)')
  t.equal(await things.count({ n: 1 }), 1, 'the line that reached the file counts, the torn one does not')
  t.ok((await readDatafile(file)).unreadable > 0, 'the file ends in a torn line: its repair failed too')

  await things.insert({ name: 'd', n: 0 })
  t.equal((await readDatafile(file)).unreadable, 0, 'rewritten before the next line was appended')
  t.notOk(health.failing, 'writes work again')
  await sameAsFile(t, things, file, 'memory = file')
})

t.test("a failed fsync refuses a 'now' write and rewrites the file from what it holds", async (t) => {
  const { things, file, datafile } = await open(t, { datafile: (file) => new FailingDatafile(file, 1) })
  await things.insert({ name: 'a', n: 0 })
  ;(datafile as FailingDatafile).syncs = 1
  await t.rejects(things.update({ name: 'a' }, { $set: { n: 1 } }), { name: 'DomainError', kind: 'STORAGE_UNAVAILABLE' })
  t.same(
    lines(file).map((line) => line.n),
    [1],
    'rewritten: one line per document',
  )
  await sameAsFile(t, things, file, 'memory = file')
})

t.test('an open whose rewrite fails (a full disk at start) serves reads, and rewrites before the next write', async (t) => {
  const text = '{"_id":"a","name":"a","n":1}\n{"_id":"a","name":"a","n":2}\n{"_id":"b","na'
  const dir = t.testdir({ 'things.db': text })
  const file = path.join(dir, 'things.db')
  const datafile = new FailingDatafile(file, 1)
  datafile.rewrites = 1
  const health = new StorageHealth(dir, undefined)
  const things = await Collection.open<Thing>('things', [], { datafile, health })
  t.same(await things.find({}), [{ _id: 'a', name: 'a', n: 2 }], 'loaded')
  t.ok(health.failing, 'told to the health monitor')
  t.equal(readFileSync(file, 'utf8'), text, 'the file as it was')
  const b = await things.insert({ name: 'b', n: 3 })
  t.same(sorted((await readDatafile(file)).docs), sorted([{ _id: 'a', name: 'a', n: 2 }, b]), 'old versions and the torn line gone')
  t.equal((await readDatafile(file)).unreadable, 0)
  t.notOk(health.failing)
})

t.test(
  'a compaction rewrites the live documents between writes: the writes called before it are in the new file, those after are appended to it',
  async (t) => {
    const { things, file } = await open(t)
    const before = Array.from({ length: 50 }, (_, n) => things.update({ name: 'a' }, { $set: { n } }, { upsert: true, durability: 'lazy' }))
    const compaction = things.compact()
    const after = Array.from({ length: 5 }, (_, n) => things.insert({ name: `b${n}`, n }, { durability: 'lazy' }))
    await Promise.all([...before, compaction, ...after])
    t.same(
      lines(file).map((line) => [line.name, line.n]),
      [['a', 49], ...Array.from({ length: 5 }, (_, n) => [`b${n}`, n])],
    )
    await things.synced()
    await sameAsFile(t, things, file, 'memory = file')
  },
)

t.test('an in-memory collection (no datafile) finds, sorts and limits', async (t) => {
  const things = await Collection.open<Thing>('things', [{ fieldName: 'n', unique: true }])
  await Promise.all([3, 1, 2].map((n) => things.insert({ name: `t${n}`, n })))
  t.same(
    (await things.find({}, { n: -1 }, 2)).map((doc) => doc.n),
    [3, 2],
  )
  t.same(
    (await things.find({ n: { $gt: 1 } }, { n: 1 })).map((doc) => doc.n),
    [2, 3],
  )
  t.equal(await things.count({ n: { $lt: 3 } }), 2)
  await t.rejects(things.insert({ name: 'again', n: 1 }), /unique/, 'indexes hold')
  t.equal(await things.remove({ n: 1 }), 1)
  t.equal(await things.update({ n: 2 }, { $set: { name: 'two' } }), 1)
  t.match(await things.findOne({ n: 2 }), { name: 'two' })
  await things.compact()
  await things.synced()
})

t.test('a write that changes nothing does not end a storage episode: it wrote nothing', async (t) => {
  const { things, health } = await open(t, {
    datafile: (file) => Object.assign(new FailingDatafile(file, 1), { rewrites: 1 }),
  })
  t.ok(health.failing, 'the open could not rewrite the file')
  t.equal(await things.remove({ name: 'none' }), 0)
  t.equal(await things.update({ name: 'none' }, { $set: { n: 1 } }), 0)
  t.ok(health.failing, 'still failing')
  await things.insert({ name: 'a', n: 1 })
  t.notOk(health.failing, 'a line written ends it')
})

t.test('isDuplicateKey tells a unique index refusing an insert (which changed nothing) from other failures', async (t) => {
  const store = new Store({ dataDir: t.testdir() })
  const things = await store.collection<{ key: number; note?: string }>('things', [{ fieldName: 'key', unique: true }])
  await things.insert({ key: 1 })
  const refused = await things.insert({ key: 1, note: 'again' }).catch((error: unknown) => error)
  t.ok(isDuplicateKey(refused))
  t.notOk(isDuplicateKey(new Error('disk full')))
  t.notOk(isDuplicateKey(undefined))
  t.same(
    (await things.find({})).map((doc) => doc.note),
    [undefined],
    'the first document, unchanged',
  )
  const reopened = await new Store({ dataDir: store.dataDir }).collection<{ key: number }>('things', [{ fieldName: 'key', unique: true }])
  t.equal(await reopened.count(), 1, 'and nothing of the refused insert reached the file')
})

type Order = { uuid: string; n: number }

async function openKeyed(file: string) {
  return Collection.open<Order>('orders', [], { datafile: new Datafile(file, 1), key: 'uuid', health: new StorageHealth(path.dirname(file), undefined) })
}

t.test('a keyed collection: put() stores a whole version under its key, adds or replaces, and the file says the same', async (t) => {
  const file = path.join(t.testdir({}), 'orders.db')
  const orders = await openKeyed(file)
  await orders.put({ uuid: 'u1', n: 1 })
  await orders.put({ uuid: 'u2', n: 2 })
  await orders.put({ uuid: 'u1', n: 3 })
  t.same(await orders.find({}, { n: 1 }), [
    { uuid: 'u2', n: 2, _id: 'u2' },
    { uuid: 'u1', n: 3, _id: 'u1' },
  ])
  t.same(await orders.findOne({ _id: 'u1' }), { uuid: 'u1', n: 3, _id: 'u1' }, 'found by its key through _id')
  t.same(
    lines(file),
    [
      { uuid: 'u1', n: 1, _id: 'u1' },
      { uuid: 'u2', n: 2, _id: 'u2' },
      { uuid: 'u1', n: 3, _id: 'u1' },
    ],
    'each put appends the version stored',
  )
  await t.rejects(orders.put({ n: 4 } as unknown as Order), /needs a keyed collection and a string key/)
  const unkeyed = (await open(t)).things
  await t.rejects(unkeyed.put({ name: 'a', n: 1 }), /needs a keyed collection/)
})

t.test('a keyed collection reads documents stored under other ids (before it was keyed) under their keys, and rewrites them so', async (t) => {
  const dir = t.testdir({
    'orders.db': ['{"uuid":"u1","n":1,"_id":"random1"}', '{"uuid":"u2","n":2,"_id":"random2"}', '{"uuid":"u1","n":5,"_id":"random1"}', ''].join('\n'),
  })
  const file = path.join(dir, 'orders.db')
  const orders = await openKeyed(file)
  t.same(await orders.find({}, { n: 1 }), [
    { uuid: 'u2', n: 2, _id: 'u2' },
    { uuid: 'u1', n: 5, _id: 'u1' },
  ])
  t.same(
    sorted(lines(file)),
    [
      { uuid: 'u1', n: 5, _id: 'u1' },
      { uuid: 'u2', n: 2, _id: 'u2' },
    ],
    'the open rewrote the file under the keys',
  )
  await orders.put({ uuid: 'u1', n: 6 })
  t.equal(await orders.count({}), 2, 'the old version was replaced, not joined by a second one')
  const reopened = await openKeyed(file)
  t.same(await reopened.find({}, { n: 1 }), [
    { uuid: 'u2', n: 2, _id: 'u2' },
    { uuid: 'u1', n: 6, _id: 'u1' },
  ])
})

t.test('a removal by _id appends its $$deleted line only when the document was there', async (t) => {
  const file = path.join(t.testdir({}), 'orders.db')
  const orders = await openKeyed(file)
  await orders.put({ uuid: 'u1', n: 1 })
  await orders.put({ uuid: 'u2', n: 2 })
  t.equal(await orders.remove({ _id: 'u1' }), 1)
  t.equal(await orders.remove({ _id: 'u1' }), 0, 'gone already')
  t.same(lines(file).slice(2), [{ $$deleted: true, _id: 'u1' }], 'one deletion line')
  t.same(await orders.find({}), [{ uuid: 'u2', n: 2, _id: 'u2' }])
  t.same((await readDatafile(file)).docs, [{ uuid: 'u2', n: 2, _id: 'u2' }], 'the file replays to the same')
})

t.test('Store.collection opens a keyed collection', async (t) => {
  const dir = t.testdir({})
  const orders = await new Store({ dataDir: dir, syncIntervalMs: 0 }).collection<Order>('orders', [], { key: 'uuid' })
  await orders.put({ uuid: 'u1', n: 1 })
  t.same(await orders.findOne({ _id: 'u1' }), { uuid: 'u1', n: 1, _id: 'u1' })
})
