import type { DatabaseSync } from 'node:sqlite'
import path from 'node:path'
import t from 'tap'
import { HighWater } from '../../../lib/history/high-water.ts'
import { HistoryStore } from '../../../lib/history/store.ts'
import { summary } from './fixtures.ts'
import { until } from '../../helpers/until.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

/** Commits summary n through a second connection, as `gateway history import` beside the gateway would. */
function commitElsewhere(file: string, n: number): void {
  const other = new HistoryStore(file)
  other.insert(summary(n))
  other.close()
}

/** Polls until check() holds or 5 s pass. */

function counted(value: () => number) {
  const reads = { count: 0 }
  return { reads, read: () => (reads.count++, value()) }
}

t.test('in memory: read once, again only after a write says so', async (t) => {
  let value = 5
  const { reads, read } = counted(() => value)
  const highWater = new HighWater(read, undefined)
  t.equal(highWater.get(), 5)
  t.equal(highWater.get(), 5)
  t.equal(reads.count, 1)
  value = 6
  highWater.changed()
  t.equal(highWater.get(), 6)
  t.equal(reads.count, 2)
})

t.test('a file: another process writing is noticed through the watch, long before maxAgeMs', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'history.sqlite')
  const store = new HistoryStore(file)
  t.teardown(() => store.close())
  store.insert(summary(1))
  // Trusted for a minute: only the watch can tell this one about the other writer.
  const highWater = new HighWater(() => store.db.prepare('SELECT max(seq) AS n FROM summaries').get()!.n as number, file, 60_000)
  t.teardown(() => highWater.close())
  t.equal(highWater.get(), 1)
  commitElsewhere(file, 2)
  await until(() => highWater.get() === 2)
  t.equal(highWater.get(), 2, 'seen')
})

t.test("the store pages see another process's summaries", async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'history.sqlite')
  const store = new HistoryStore(file)
  t.teardown(() => store.close())
  store.insert(summary(1))
  t.equal(store.highWater(), 1)
  commitElsewhere(file, 2)
  await until(() => store.highWater() === 2)
  t.equal(store.list({}, { offset: 0, limit: 5 }).count, 2)
})

t.test('a file: a value is trusted for maxAgeMs at most, and own writes are seen at once', async (t) => {
  const dir = t.testdir({})
  let value = 1
  const { reads, read } = counted(() => value)
  const clock = new ManualClock()
  const highWater = new HighWater(read, path.join(dir, 'history.sqlite'), 50, clock)
  t.teardown(() => highWater.close())
  t.equal(highWater.get(), 1)
  value = 2
  t.equal(highWater.get(), 1, 'not asked again within maxAgeMs')
  await clock.advance(49)
  t.equal(highWater.get(), 1, 'still trusted at 49 ms')
  await clock.advance(1)
  t.equal(highWater.get(), 2, 'asked again at maxAgeMs')
  value = 3
  highWater.changed()
  t.equal(highWater.get(), 3)
  t.equal(reads.count, 3)
})

t.test('where the directory cannot be watched, every get() reads', async (t) => {
  let value = 1
  const { reads, read } = counted(() => value)
  const highWater = new HighWater(read, '/nonexistent-dir/history.sqlite')
  highWater.get()
  value = 2
  t.equal(highWater.get(), 2)
  t.equal(reads.count, 2)
  highWater.close()
})

t.test('the store reads its newest position from SQLite', async (t) => {
  const store = new HistoryStore(':memory:')
  t.equal(store.highWater(), 0)
  store.insertMany([summary(1), summary(2)])
  t.equal(store.highWater(), 2)
  const db = store.db as DatabaseSync
  t.equal(Number((db.prepare('SELECT max(seq) AS n FROM summaries').get() as { n: number }).n), 2)
})
