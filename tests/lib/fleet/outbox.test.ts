import t from 'tap'
import { FleetOutbox } from '../../../lib/fleet/outbox.ts'
import { Store } from '../../../lib/store/db.ts'

async function open(store: Store, keep = 0) {
  return FleetOutbox.open(await store.collection('fleet-outbox', [{ fieldName: 'seq', unique: true }]), await store.collection('fleet-cursor'), keep)
}

const entry = (seq: number) => ({ seq, messages: [{ channel: 'events' as const, payload: `{"seq":${seq}}` }] })

t.test('entries come out oldest first and leave once acknowledged', async (t) => {
  const outbox = await open(new Store())
  for (const seq of [3, 1, 2, 5, 4]) await outbox.add(entry(seq))
  t.equal(outbox.backlog, 5)
  t.same(
    (await outbox.head(3)).map((e) => e.seq),
    [1, 2, 3],
  )
  t.equal(outbox.lastPublishedSeq, null)
  await outbox.acknowledged([1, 2, 3])
  t.equal(outbox.backlog, 2)
  t.equal(outbox.lastPublishedSeq, 3)
  t.same(await outbox.head(10), [entry(4), entry(5)])
  await outbox.acknowledged([])
  t.equal(outbox.backlog, 2)
  t.equal(outbox.replayAfter, 3, 'no window: nothing published can be replayed')
  t.same(await outbox.published(1, 10, 10), [])
})

t.test('backlog and the last acknowledged seq survive a restart', async (t) => {
  const dir = t.testdir()
  const first = new Store({ dataDir: dir, syncIntervalMs: 0 })
  const outbox = await open(first)
  for (let seq = 1; seq <= 4; seq++) await outbox.add(entry(seq))
  await outbox.acknowledged([1, 2])
  // No close(): the process dies; acknowledged writes are already on disk.
  const again = await open(new Store({ dataDir: dir, syncIntervalMs: 0 }))
  t.equal(again.backlog, 2)
  t.equal(again.lastPublishedSeq, 2)
  t.same(
    (await again.head(10)).map((e) => e.seq),
    [3, 4],
  )
  t.equal(again.lastRendered, 4)
})

t.test('the replay window holds the newest published entries, byte for byte', async (t) => {
  const outbox = await open(new Store(), 40)
  t.equal(outbox.lastRendered, null, 'nothing rendered yet')
  t.equal(outbox.replayAfter, 0, 'nothing published: nothing lost')
  // Seqs are not dense (blocks skipped after a crash): 2, 4, 6, ...
  for (let seq = 2; seq <= 200; seq += 2) await outbox.add(entry(seq))
  t.equal(outbox.lastRendered, 200)
  const head = await outbox.head(60)
  await outbox.acknowledged(head.map((e) => e.seq))
  t.equal(outbox.backlog, 40)
  t.equal(outbox.lastPublishedSeq, 120)
  // 60 published, 40 kept (pruned once 2 over: the slack keeps pruning to one query per few entries).
  t.equal(outbox.replayAfter, 40, 'the 20 oldest were dropped')
  t.same(
    await outbox.published(0, 1000, 1000),
    Array.from({ length: 40 }, (_, i) => entry(42 + i * 2)),
    'only published entries, all held ones',
  )
  t.same(
    (await outbox.published(50, 60, 10)).map((e) => e.seq),
    [50, 52, 54, 56, 58, 60],
  )
  t.same(
    (await outbox.published(50, 60, 2)).map((e) => e.seq),
    [50, 52],
    'at most the limit',
  )
  t.same(await outbox.published(130, 200, 10), [], 'what waits for the broker is not replayed: the drain sends it')
  t.same(await outbox.published(60, 50, 10), [])
  t.same(await outbox.published(1, 10, 0), [])
  t.same((await outbox.head(100)).map((e) => e.seq)[0], 122, 'the drain goes on above the cursor')
  t.equal(await outbox.add(entry(100)), false, 'a change recorded again after a crash, still held: kept as it is')
  t.equal(await outbox.add(entry(10)), false, 'one published before and gone: not published again')
  t.equal(await outbox.add(entry(150)), false, 'one still waiting for the broker: its entry is kept, not doubled')
  t.equal(outbox.backlog, 40)
  t.equal(await outbox.add(entry(202)), true)
  t.equal(outbox.backlog, 41)
})

t.test('the window and what it can replay survive a restart', async (t) => {
  const dir = t.testdir()
  const outbox = await open(new Store({ dataDir: dir, syncIntervalMs: 0 }), 10)
  for (let seq = 1; seq <= 30; seq++) await outbox.add(entry(seq))
  await outbox.acknowledged(Array.from({ length: 25 }, (_, i) => i + 1))
  t.equal(outbox.replayAfter, 15)
  const again = await open(new Store({ dataDir: dir, syncIntervalMs: 0 }), 10)
  t.equal(again.replayAfter, 15)
  t.equal(again.backlog, 5)
  t.equal(again.lastRendered, 30)
  t.same(
    (await again.published(1, 100, 100)).map((e) => e.seq),
    [16, 17, 18, 19, 20, 21, 22, 23, 24, 25],
  )
  // A smaller window at the next start drops the excess at once.
  const smaller = await open(new Store({ dataDir: dir, syncIntervalMs: 0 }), 3)
  t.equal(smaller.replayAfter, 22)
  t.same(
    (await smaller.published(1, 100, 100)).map((e) => e.seq),
    [23, 24, 25],
  )
})

t.test('an outbox from before the window (or emptied by a restore) can replay nothing published', async (t) => {
  const store = new Store()
  const cursor = await store.collection('fleet-cursor')
  await cursor.insert({ key: 'published', seq: 500 })
  const outbox = await open(store, 100)
  t.equal(outbox.replayAfter, 500)
  t.equal(outbox.lastRendered, 500, 'the next change says the last one published was 500')
  t.same(await outbox.published(1, 1000, 10), [])
})
