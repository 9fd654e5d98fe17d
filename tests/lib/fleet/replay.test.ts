import t from 'tap'
import { FleetOutbox, type FleetOutboxEntry } from '../../../lib/fleet/outbox.ts'
import { FleetReplayer, parseReplayRequest, ReplayBudget } from '../../../lib/fleet/replay.ts'
import { Store } from '../../../lib/store/db.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

t.test('requests: two non-negative integers, from <= to', async (t) => {
  t.same(parseReplayRequest('{"from":3,"to":9}'), { from: 3, to: 9 })
  t.same(parseReplayRequest(Buffer.from('{"from":0,"to":0,"extra":true}')), { from: 0, to: 0 })
  t.match(parseReplayRequest('nope'), { error: 'not JSON' })
  t.match(parseReplayRequest('null'), { error: /integers/ })
  t.match(parseReplayRequest('{"from":-1,"to":3}'), { error: /integers/ })
  t.match(parseReplayRequest('{"from":1.5,"to":3}'), { error: /integers/ })
  t.match(parseReplayRequest('{"from":"1","to":3}'), { error: /integers/ })
  t.match(parseReplayRequest('{"from":1e300,"to":3}'), { error: /integers/ })
  t.match(parseReplayRequest('{"from":5,"to":3}'), { error: 'from is above to' })
})

t.test('the budget refills per minute and never saves more than a minute', async (t) => {
  const clock = new ManualClock()
  const budget = new ReplayBudget(600, clock)
  t.equal(budget.take(1000), 600)
  t.equal(budget.take(1), 0)
  await clock.advance(1000)
  t.equal(budget.available, 10)
  t.equal(budget.take(4), 4)
  await clock.advance(3_600_000)
  t.equal(budget.available, 600)
})

async function windowOf(count: number) {
  const store = new Store()
  const outbox = await FleetOutbox.open(
    await store.collection('fleet-outbox', [{ fieldName: 'seq', unique: true }]),
    await store.collection('fleet-cursor'),
    1000,
  )
  for (let seq = 1; seq <= count; seq++) await outbox.add({ seq, messages: [{ channel: 'events', payload: `{"seq":${seq}}` }] })
  await outbox.acknowledged(Array.from({ length: count }, (_, i) => i + 1))
  return outbox
}

t.test('a replay publishes the range from the window, within the budget, one at a time', async (t) => {
  const clock = new ManualClock()
  const replayer = new FleetReplayer(await windowOf(100), new ReplayBudget(31, clock))
  const published: FleetOutboxEntry[] = []
  const publish = async (entry: FleetOutboxEntry) => void published.push(entry)
  t.match(await replayer.serve('{"from":10,"to":19}', publish), { served: true, entries: 10, firstSeq: 10, lastSeq: 19, replayAfter: 0 })
  t.same(
    published.map((e) => e.seq),
    [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
  )
  t.equal(published[0]!.messages[0]!.payload, '{"seq":10}', 'the stored message, as first published')
  // 31 - 11 = 20 left: the request costs one, 19 entries.
  published.length = 0
  t.match(await replayer.serve('{"from":1,"to":100}', publish), { served: true, entries: 19, firstSeq: 1, lastSeq: 19 })
  t.match(await replayer.serve('{"from":1,"to":100}', publish), { served: false, reason: 'replay budget spent' })
  t.match(await replayer.serve('{"from":"x"}', publish), { served: false, reason: /malformed/ })
  await clock.advance(60_000)
  // One at a time: a request while one is publishing is dropped.
  let release!: () => void
  const slow = replayer.serve('{"from":50,"to":52}', () => new Promise<void>((resolve) => (release = resolve)))
  await new Promise((resolve) => setImmediate(resolve))
  t.match(await replayer.serve('{"from":1,"to":2}', publish), { served: false, reason: 'a replay is already running' })
  release()
  await new Promise((resolve) => setImmediate(resolve))
  release()
  await new Promise((resolve) => setImmediate(resolve))
  release()
  t.match(await slow, { served: true, entries: 3 })
  // A publish that fails (the connection closed) ends the replay and frees the replayer.
  await t.rejects(
    replayer.serve('{"from":1,"to":5}', async () => Promise.reject(new Error('connection closed'))),
    /connection closed/,
  )
  t.match(await replayer.serve('{"from":1,"to":1}', publish), { served: true, entries: 1 })
})
