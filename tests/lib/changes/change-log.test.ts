// ChangeLog: seq reserved before a write and recorded after it, and the watermark of what
// surely reached every sink, which survives a restart (and may only lag, never lead).
import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { ChangeLog } from '../../../lib/changes/change-log.ts'
import type { ActiveOrder, OrderChange } from '../../../lib/orders/types.ts'
import { Store } from '../../../lib/store/db.ts'
import { sampleOrder } from '../../helpers/webhooks.ts'

const order: ActiveOrder = sampleOrder(1, 0)

t.test('a reserved seq is the one recorded, at the reserved time; seq never goes back', async (t) => {
  const clock = new ManualClock()
  const seen: OrderChange[] = []
  const log = await ChangeLog.open(await new Store().collection('seq'), clock, { blockSize: 3, sinks: [async (change) => void seen.push(change)] })
  const reserved = await log.reserve()
  await clock.advance(500)
  const change = await log.record('ORDER_CREATED', order, reserved)
  t.same({ seq: change.seq, at: change.at }, reserved)
  t.equal((await log.record('ORDER_MODIFIED', order)).seq, reserved.seq + 1)
  await log.reserve() // taken and never recorded: skipped, not reused
  t.equal((await log.record('ORDER_MODIFIED', order)).seq, reserved.seq + 3)
  t.same(
    seen.map((c) => c.seq),
    [1, 2, 4],
  )
})

t.test('seqs go out in call order: a reservation waits for the records and reservations queued before it', async (t) => {
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  const log = await ChangeLog.open(await new Store().collection('seq'), new ManualClock(), { blockSize: 2, sinks: [() => held] })
  const recording = log.record('ORDER_CREATED', order) // takes seq 1, then waits in its sink
  const reservations = [log.reserve(), log.reserve(), log.reserve()] // 2, then 3 and 4 from a new block
  const early = await Promise.race([reservations[0].then(() => 'taken'), new Promise((resolve) => setImmediate(() => resolve('waiting')))])
  t.equal(early, 'waiting', 'not taken while a record is queued before it')
  release()
  t.equal((await recording).seq, 1)
  t.same(
    (await Promise.all(reservations)).map((r) => r.seq),
    [2, 3, 4],
  )
  t.equal((await log.reserve()).seq, 5, 'with nothing queued, taken at once')
})

t.test('announcedThrough: the highest recorded seq, kept across a restart', async (t) => {
  const store = new Store({ dataDir: t.testdir() })
  const clock = new ManualClock()
  const first = await ChangeLog.open(await store.collection('seq'), clock, { blockSize: 2 })
  t.equal(first.announcedThrough, 0)
  for (let i = 0; i < 5; i++) await first.record('ORDER_MODIFIED', order)
  await first.reserve() // reserved for a write that a crash cut off before its record
  t.equal(first.announcedThrough, 5)
  await first.flush()

  const second = await ChangeLog.open(await new Store({ dataDir: store.dataDir }).collection('seq'), clock, { blockSize: 2 })
  t.equal(second.announcedThrough, 5, 'the watermark survived')
  t.equal(second.lastSeq, 6, 'and seq continues after every reservation')
})

t.test('a sink that fails leaves the watermark where it was', async (t) => {
  let full = false
  const sink = async () => {
    if (full) throw new Error('disk full')
  }
  const log = await ChangeLog.open(await new Store().collection('seq'), new ManualClock(), { sinks: [sink] })
  await log.record('ORDER_CREATED', order)
  full = true
  await t.rejects(log.record('ORDER_MODIFIED', order), { message: 'disk full' })
  t.equal(log.announcedThrough, 1)
})

t.test("live listeners hear 'recorded' after every sink, and a failing one changes nothing", async (t) => {
  const heard: string[] = []
  const sink = async (change: OrderChange) => void heard.push(`sink ${change.seq}`)
  const log = await ChangeLog.open(await new Store().collection('seq'), new ManualClock(), { sinks: [sink] })
  log.on('recorded', () => {
    throw new Error('a broken socket')
  })
  const off = log.on('recorded', (change) => void heard.push(`live ${change.seq}`))
  await log.record('ORDER_CREATED', order)
  off()
  const second = await log.record('ORDER_MODIFIED', order)
  t.same(heard, ['sink 1', 'live 1', 'sink 2'])
  t.equal(second.seq, 2, 'the failing listener did not stop recording')
  t.equal(log.announcedThrough, 2)
})
