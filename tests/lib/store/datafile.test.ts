import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { Datafile } from '../../../lib/store/datafile.ts'
import { Store } from '../../../lib/store/db.ts'

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean)

t.test('appends NeDB lines at once, one per document, in order', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  const datafile = new Datafile(file, 1)
  datafile.append([{ _id: 'a', n: 1, when: new Date(0) }])
  datafile.append([
    { _id: 'b', n: 2, skipped: undefined },
    { _id: 'c', n: 3 },
  ])
  datafile.append([])
  t.same(lines(file), ['{"_id":"a","n":1,"when":{"$$date":0}}', '{"_id":"b","n":2}', '{"_id":"c","n":3}'])
  await datafile.sync()
  await datafile.release()
})

t.test('sync waits for the group window once for many appends, and is free when nothing is new', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  // A long window read with the process's clock: a sync that waited for another window would
  // take 2 s; one that did not is allowed 1 s, a margin a busy machine does not use up.
  const datafile = new Datafile(file, 2_000)
  datafile.append([{ _id: 'a' }])
  const first = datafile.sync()
  datafile.append([{ _id: 'b' }])
  t.equal(datafile.sync(), first, 'appends inside one window share its sync')
  const started = performance.now()
  await first
  const again = performance.now()
  await datafile.sync()
  t.ok(performance.now() - again < 1_000, `nothing new: resolved at once (window was ${(again - started).toFixed(0)} ms)`)
  await datafile.release()
})

t.test('group commit without a window: one fdatasync at a time, the appends made while it runs share the next', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  const datafile = new Datafile(file, 0)
  datafile.append([{ _id: 'a' }])
  const first = datafile.sync()
  datafile.append([{ _id: 'b' }])
  t.equal(datafile.sync(), first, 'appends of one event-loop turn share a group')
  // The turn ends: the first group's fdatasync starts, and later appends need another.
  await new Promise((resolve) => setImmediate(resolve))
  datafile.append([{ _id: 'c' }])
  const second = datafile.sync()
  t.not(second, first, 'an append after the fdatasync started is not covered by it')
  datafile.append([{ _id: 'd' }])
  t.equal(datafile.sync(), second, 'appends while it runs join the next group')
  let secondDone = false
  void second.then(() => (secondDone = true))
  await first
  t.notOk(secondDone, 'the next group starts only after the fdatasync before it has finished')
  await second
  t.equal(
    await Promise.race([datafile.sync().then(() => 'synced'), new Promise((resolve) => setImmediate(() => resolve('waiting')))]),
    'synced',
    'everything appended is on disk: nothing to wait for',
  )
  await datafile.release()
})

t.test('a sync asked for while an fdatasync runs, with nothing appended since it started, is done when that one is', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  const datafile = new Datafile(file, 0)
  datafile.append([{ _id: 'a' }])
  const first = datafile.sync()
  await new Promise((resolve) => setImmediate(resolve))
  const again = datafile.sync() // the line is appended, not yet durable: a group of its own
  t.not(again, first)
  await first
  await again
  t.equal(await Promise.race([datafile.sync().then(() => 'synced'), new Promise((resolve) => setImmediate(() => resolve('waiting')))]), 'synced')
  await datafile.release()
})

t.test('a rewrite replaces the file with the documents given; appends go on to the new file', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'things.db')
  const datafile = new Datafile(file, 60_000)
  datafile.append([{ _id: 'a', n: 1 }])
  datafile.append([{ _id: 'a', n: 2 }])
  t.equal(datafile.appendedSinceRewrite, 2)
  await datafile.rewrite([{ _id: 'a', n: 2 }])
  t.same(lines(file), ['{"_id":"a","n":2}'])
  t.equal(datafile.appendedSinceRewrite, 0, 'the file is its live documents again')
  t.notOk(existsSync(`${file}~`), 'no replacement left behind')
  const synced = await Promise.race([datafile.sync().then(() => 'synced'), new Promise((resolve) => setImmediate(() => resolve('waiting')))])
  t.equal(synced, 'synced', 'the rewritten file was fsynced: earlier appends need no group commit')
  datafile.append([{ _id: 'b' }])
  t.same(lines(file), ['{"_id":"a","n":2}', '{"_id":"b"}'])
  await datafile.release()
})

t.test('a rewrite that fails leaves the file as it was', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'things.db')
  const datafile = new Datafile(file, 1)
  datafile.append([{ _id: 'a' }])
  // The replacement is written as things.db~: a directory there fails it.
  mkdirSync(`${file}~`)
  await t.rejects(datafile.rewrite([]), { code: 'EISDIR' })
  t.same(lines(file), ['{"_id":"a"}'])
  t.equal(datafile.appendedSinceRewrite, 1)
  datafile.append([{ _id: 'b' }])
  t.same(lines(file), ['{"_id":"a"}', '{"_id":"b"}'], 'appends go on to the same file')
  await datafile.sync()
  await datafile.release()
})

t.test('a released datafile still syncs what it wrote, by name', async (t) => {
  const file = path.join(t.testdir({}), 'things.db')
  const datafile = new Datafile(file, 1)
  datafile.append([{ _id: 'a' }])
  await datafile.release()
  await t.resolves(datafile.sync(), 'synced through a descriptor opened for it')
})

t.test('a collection keeps appending to its file across compactions', async (t) => {
  const dir = t.testdir({})
  const store = new Store({ dataDir: dir, syncIntervalMs: 1 })
  const things = await store.collection<{ n: number }>('things')
  await things.insert({ n: 1 })
  await things.compact()
  await things.insert({ n: 2 })
  await things.update({ n: 1 }, { $set: { n: 10 } })
  const reopened = await new Store({ dataDir: dir }).collection<{ n: number }>('things')
  t.same(
    (await reopened.find({}, { n: 1 })).map((d) => d.n),
    [2, 10],
  )
})
