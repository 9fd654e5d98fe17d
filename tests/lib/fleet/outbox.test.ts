import t from 'tap'
import { FleetOutbox } from '../../../lib/fleet/outbox.ts'
import { Store } from '../../../lib/store/db.ts'

async function open(store: Store) {
  return FleetOutbox.open(await store.collection('fleet-outbox'), await store.collection('fleet-cursor'))
}

const entry = (seq: number) => ({ seq, messages: [{ channel: 'events' as const, payload: `{"seq":${seq}}` }] })

t.test('entries come out oldest first and leave once acknowledged', async (t) => {
  const outbox = await open(new Store())
  for (const seq of [3, 1, 2, 5, 4]) await outbox.add(entry(seq))
  t.equal(outbox.backlog, 5)
  t.same((await outbox.head(3)).map((e) => e.seq), [1, 2, 3])
  t.equal(outbox.lastPublishedSeq, null)
  await outbox.remove([1, 2, 3])
  t.equal(outbox.backlog, 2)
  t.equal(outbox.lastPublishedSeq, 3)
  t.same(await outbox.head(10), [entry(4), entry(5)])
  await outbox.remove([])
  t.equal(outbox.backlog, 2)
})

t.test('backlog and the last acknowledged seq survive a restart', async (t) => {
  const dir = t.testdir()
  const first = new Store({ dataDir: dir, syncIntervalMs: 0 })
  const outbox = await open(first)
  for (let seq = 1; seq <= 4; seq++) await outbox.add(entry(seq))
  await outbox.remove([1, 2])
  // No close(): the process dies; acknowledged writes are already on disk.
  const again = await open(new Store({ dataDir: dir, syncIntervalMs: 0 }))
  t.equal(again.backlog, 2)
  t.equal(again.lastPublishedSeq, 2)
  t.same((await again.head(10)).map((e) => e.seq), [3, 4])
})
