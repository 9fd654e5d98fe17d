import { execFileSync } from 'node:child_process'
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { defaultCompactAfterLines as compactAfterLines, Store, storageError, SyncBatch } from '../../../lib/store/db.ts'
import type { DomainError } from '../../../lib/kernel/errors.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length

t.test('writes persist to the data dir and survive reopening', async (t) => {
  const dir = t.testdir({})
  const store = new Store({ dataDir: dir, syncIntervalMs: 1 })
  const things = await store.collection<{ n: number }>('things')
  await Promise.all([1, 2, 3].map((n) => things.insert({ n })))
  t.equal(await things.update({ n: 2 }, { $set: { n: 20 } }), 1)
  t.equal(await things.remove({ n: 3 }), 1)
  t.equal(await store.collection('things'), things, 'a collection is opened once')
  await store.close()
  const reopened = await new Store({ dataDir: dir }).collection<{ n: number }>('things')
  t.same(
    (await reopened.find({}, { n: 1 })).map((d) => d.n),
    [1, 20],
  )
})

t.test('a collection asked for twice at once is opened (and its file read) once', async (t) => {
  const store = new Store({ dataDir: t.testdir({}) })
  const [a, b] = await Promise.all([store.collection('things'), store.collection('things')])
  t.equal(a, b)
})

t.test('close compacts every datafile to its live documents', async (t) => {
  const dir = t.testdir({})
  const store = new Store({ dataDir: dir, syncIntervalMs: 1 })
  const things = await store.collection<{ n: number }>('things')
  const others = await store.collection<{ n: number }>('others')
  for (const collection of [things, others]) {
    await collection.insert({ n: 0 })
    for (let n = 1; n <= 5; n++) await collection.update({}, { $set: { n } })
    await collection.insert({ n: 9 })
    await collection.remove({ n: 9 })
  }
  t.equal(lines(path.join(dir, 'things.db')), 8)
  await store.close()
  t.equal(lines(path.join(dir, 'things.db')), 1)
  t.equal(lines(path.join(dir, 'others.db')), 1)
  const reopened = await new Store({ dataDir: dir }).collection<{ n: number }>('others')
  t.same(
    (await reopened.find({})).map((d) => d.n),
    [5],
  )
})

t.test('a torn last line from a crash is dropped, not fatal', async (t) => {
  const dir = t.testdir({})
  const store = new Store({ dataDir: dir })
  const things = await store.collection<{ n: number }>('things')
  await things.insert({ n: 1 })
  appendFileSync(path.join(dir, 'things.db'), '{"n":2,"_id":"ab')
  const reopened = await new Store({ dataDir: dir }).collection<{ n: number }>('things')
  t.same(
    (await reopened.find({})).map((d) => d.n),
    [1],
  )
  t.notMatch(readFileSync(path.join(dir, 'things.db'), 'utf8'), /"ab$/, 'file rewritten without the torn line')
})

t.test('in-memory store for tests writes no files', async (t) => {
  const store = new Store()
  const things = await store.collection<{ n: number }>('things')
  await things.insert({ n: 1 })
  t.equal(await things.count(), 1)
  t.equal(store.dataDir, undefined)
  await store.close()
})

t.test('collection names are checked', async (t) => {
  await t.rejects(new Store().collection('../etc'), /bad collection name/)
})

t.test('file-system errors meaning "cannot write" become STORAGE_UNAVAILABLE', async (t) => {
  const enospc = Object.assign(new Error('no space'), { code: 'ENOSPC' })
  t.equal((storageError(enospc) as DomainError).kind, 'STORAGE_UNAVAILABLE')
  const other = new Error('other')
  t.equal(storageError(other), other)
})

t.test(
  'a write to an unwritable datafile is refused with STORAGE_UNAVAILABLE',
  { skip: process.getuid?.() === 0 ? 'root ignores file modes' : false },
  async (t) => {
    const dir = t.testdir({})
    const things = await new Store({ dataDir: dir }).collection<{ n: number }>('things')
    chmodSync(path.join(dir, 'things.db'), 0o400)
    await t.rejects(things.insert({ n: 1 }), { name: 'DomainError', kind: 'STORAGE_UNAVAILABLE' })
  },
)

t.test('a full disk refuses writes with STORAGE_UNAVAILABLE, leaves no phantom state, and writes resume', async (t) => {
  const disk = mkdtempSync(path.join(tmpdir(), 'gw-disk-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48k', 'tmpfs', disk], { stdio: 'ignore' })
  } catch {
    rmSync(disk, { recursive: true })
    t.comment('skipped: cannot mount a small tmpfs here')
    return
  }
  t.teardown(() => {
    execFileSync('umount', ['-l', disk])
    rmSync(disk, { recursive: true })
  })
  const store = new Store({ dataDir: path.join(disk, 'data'), syncIntervalMs: 1 })
  const things = await store.collection<{ n: number; pad: string }>('things')
  const filler = path.join(disk, 'filler')
  writeFileSync(filler, Buffer.alloc(0))
  // Fill the disk, leaving no room for another document.
  try {
    for (;;) appendFileSync(filler, Buffer.alloc(1024))
  } catch {}
  const pad = 'x'.repeat(4000)
  let refused = 0
  for (let n = 0; n < 5; n++) {
    try {
      await things.insert({ n, pad })
    } catch (error) {
      t.equal((error as DomainError).kind, 'STORAGE_UNAVAILABLE')
      refused++
    }
  }
  t.ok(refused > 0, 'writes refused while the disk is full')
  const acknowledged = 5 - refused
  t.equal(await things.count(), acknowledged, 'memory holds only acknowledged writes')

  rmSync(filler)
  await things.insert({ n: 99, pad: 'after' })
  const reopened = await new Store({ dataDir: path.join(disk, 'data') }).collection<{ n: number }>('things')
  t.equal(await reopened.count(), acknowledged + 1, 'disk holds every acknowledged write, nothing torn')
  t.ok(await reopened.findOne({ n: 99 }), 'writes resume when space returns')
})

// The waits below are read with the process's own clock against a long window: a write that
// waited for the group commit takes at least WINDOW_MS, one that did not is allowed up to half
// of it, a margin a busy machine does not use up.
const WINDOW_MS = 2_000
const NOT_WAITED_MS = WINDOW_MS / 2

t.test('a SyncBatch: writes resolve once appended, durable once fsynced together', async (t) => {
  const dir = t.testdir({})
  const store = new Store({ dataDir: dir, syncIntervalMs: WINDOW_MS })
  const things = await store.collection<{ n: number }>('things')
  const started = performance.now()
  const batch = new SyncBatch()
  await things.insert({ n: 1 }, { durability: batch })
  await things.update({ n: 2 }, { n: 2 }, { upsert: true, durability: batch })
  const appendedAfter = performance.now() - started
  t.ok(appendedAfter < NOT_WAITED_MS, `appends did not wait for the sync window (${appendedAfter.toFixed(0)} ms)`)
  await batch.durable()
  t.ok(performance.now() - started >= WINDOW_MS - 10, 'durable() waited for the group commit')
  const quiet = performance.now()
  await things.synced()
  t.ok(performance.now() - quiet < NOT_WAITED_MS, 'nothing new written: synced() does not wait for another window')
  const reopened = await new Store({ dataDir: dir }).collection<{ n: number }>('things')
  t.equal(await reopened.count(), 2, 'both on disk')
})

t.test("durability 'now' (the default) waits for the fsync, whatever batch runs beside it", async (t) => {
  const dir = t.testdir({})
  const store = new Store({ dataDir: dir, syncIntervalMs: WINDOW_MS })
  const things = await store.collection<{ n: number }>('things')
  const batch = new SyncBatch()
  await things.insert({ n: 0 }, { durability: batch })
  let started = performance.now()
  await things.update({ n: 1 }, { n: 1 }, { upsert: true, durability: 'now' })
  t.ok(performance.now() - started >= WINDOW_MS - 10, "'now' waited for the fsync")
  started = performance.now()
  await things.insert({ n: 2 })
  t.ok(performance.now() - started >= WINDOW_MS - 10, 'so does a write that names no durability')
  await batch.durable()
})

t.test('the writes of a batch nobody waits for still reach the disk with the group commit', async (t) => {
  const dir = t.testdir({})
  const store = new Store({ dataDir: dir, syncIntervalMs: 20 })
  const things = await store.collection<{ n: number }>('things')
  const batch = new SyncBatch()
  await things.insert({ n: 3 }, { durability: batch })
  await things.synced()
  const reopened = await new Store({ dataDir: dir }).collection<{ n: number }>('things')
  t.equal(await reopened.count(), 1)
})

t.test('lazy writes resolve once appended and are made durable by the next group commit', async (t) => {
  const dir = t.testdir({})
  const store = new Store({ dataDir: dir, syncIntervalMs: WINDOW_MS })
  const things = await store.collection<{ n: number }>('things')
  await things.insert({ n: 1 })
  const started = performance.now()
  await things.remove({ n: 1 }, { durability: 'lazy' })
  t.ok(performance.now() - started < NOT_WAITED_MS, 'did not wait for the sync window')
  await things.synced()
  const reopened = await new Store({ dataDir: dir }).collection<{ n: number }>('things')
  t.equal(await reopened.count(), 0, 'on disk after the group commit')
})

t.test('a datafile that grew by many versions of a few documents is compacted while open', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'things.db')
  const store = new Store({ dataDir: dir, syncIntervalMs: 1 })
  const things = await store.collection<{ name: string; n: number }>('things')
  await Promise.all(['a', 'b', 'c'].map((name) => things.insert({ name, n: 0 })))
  await Promise.all(Array.from({ length: compactAfterLines - 10 }, (_, n) => things.update({ name: 'a' }, { $set: { n } })))
  t.ok(lines(file) >= compactAfterLines - 7, 'below the threshold every version is still there')
  await Promise.all(Array.from({ length: 20 }, (_, n) => things.update({ name: 'b' }, { $set: { n } })))
  await until(() => lines(file) < 50, 'compaction')
  // The three live documents, and the updates NeDB ran after the compaction, if any.
  const compacted = lines(file)
  t.ok(compacted >= 3 && compacted <= 23, `compacted to ${compacted} lines`)
  await things.update({ name: 'c' }, { $set: { n: 7 } })
  t.equal(lines(file), compacted + 1, 'appends go on to the new file')
  const reopened = await new Store({ dataDir: dir }).collection<{ name: string; n: number }>('things')
  t.same(
    (await reopened.find({}, { name: 1 })).map(({ name, n }) => [name, n]),
    [
      ['a', compactAfterLines - 11],
      ['b', 19],
      ['c', 7],
    ],
  )
})

t.test('a datafile of many live documents is not rewritten for fewer lines than it holds', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'things.db')
  const store = new Store({ dataDir: dir, syncIntervalMs: 1 })
  const things = await store.collection<{ n: number }>('things')
  await Promise.all(Array.from({ length: compactAfterLines }, (_, n) => things.insert({ n })))
  await Promise.all(Array.from({ length: 100 }, (_, n) => things.update({ n }, { $set: { n: -n } })))
  // A compaction starts as the write that crossed the threshold resolves, queued ahead of
  // later writes, so a write issued now runs after any compaction those writes started.
  await things.insert({ n: -1 })
  t.equal(lines(file), compactAfterLines + 101, 'not compacted: the live documents outweigh the old versions')
})

t.test('a compaction that fails leaves the file whole, is logged, and is tried again after as many lines', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'things.db')
  const { log, lines: logged } = memoryLogger()
  const store = new Store({ dataDir: dir, syncIntervalMs: 1, compactAfterLines: 40, log })
  const things = await store.collection<{ n: number }>('things')
  await things.insert({ n: 0 })
  // NeDB writes the new file as things.db~ before renaming it: a directory there fails it.
  mkdirSync(`${file}~`)
  for (let n = 1; n <= 60; n++) await things.update({}, { $set: { n } })
  await until(() => logged().some((line) => line.msg === 'datafile not compacted (tried again later)'), 'the failure')
  t.equal(lines(file), 61, 'every line still there')
  rmSync(`${file}~`, { recursive: true })
  for (let n = 61; n <= 70; n++) await things.update({}, { $set: { n } })
  t.equal(lines(file), 71, 'not tried again before another 40 lines')
  for (let n = 71; n <= 80; n++) await things.update({}, { $set: { n } })
  await until(() => lines(file) < 10, 'the compaction')
  t.ok(logged().some((line) => line.msg === 'datafile compacted' && line.collection === 'things'))
  const reopened = await new Store({ dataDir: dir }).collection<{ n: number }>('things')
  t.same(
    (await reopened.find({})).map((d) => d.n),
    [80],
  )
})
