import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { PagingScheduler } from '../../../runtime/workers/scheduler.ts'

/** A radio whose sends are recorded and can be held open or made to fail. */
function fakeRadio(clock: ManualClock) {
  const sent: string[] = []
  let inFlight = 0
  let maxInFlight = 0
  let hold: Promise<void> | undefined
  let failPages = 0
  const radio = {
    sent,
    get maxInFlight() {
      return maxInFlight
    },
    holdSends(): () => void {
      let release!: () => void
      hold = new Promise<void>((resolve) => (release = resolve))
      return () => {
        hold = undefined
        release()
      }
    },
    failNextPages(n: number) {
      failPages = n
    },
    async page(address: string, lease: number) {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      sent.push(`${(clock.now() - start) / 1000}s page ${address} ${lease}`)
      try {
        if (hold) await hold
        if (failPages > 0) {
          failPages--
          throw new Error('no ack')
        }
      } finally {
        inFlight--
      }
    },
    async cancel(address: string) {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      sent.push(`${(clock.now() - start) / 1000}s stop ${address}`)
      try {
        if (hold) await hold
      } finally {
        inFlight--
      }
    },
  }
  const start = clock.now()
  return radio
}

function setup() {
  const clock = new ManualClock()
  const radio = fakeRadio(clock)
  const lapsed: string[] = []
  const memory = memoryLogger()
  const scheduler = new PagingScheduler({ radio, clock, log: memory.log, onLapse: (tracker) => lapsed.push(tracker) })
  return { clock, radio, lapsed, scheduler, memory }
}

t.test('tracking: a 30 s lease re-sent every 10 s until stopped; stop is sent 3 times, 2.5 s apart', async (t) => {
  const { clock, radio, scheduler } = setup()
  scheduler.page('T1', { tracking: true })
  await clock.advance(25_000)
  t.same(radio.sent, ['0s page T1 30', '10s page T1 30', '20s page T1 30'])
  t.ok(scheduler.isPaging('T1'))
  radio.sent.length = 0
  scheduler.stop('T1')
  t.notOk(scheduler.isPaging('T1'), 'stop is answered at once')
  await clock.advance(60_000)
  t.same(radio.sent, ['25s stop T1', '27.5s stop T1', '30s stop T1'], 'no page after the stop')
  t.equal(clock.pending, 0, 'no timer left')
})

t.test('once: one ~60 s lease, then the lapse is reported; no refresh', async (t) => {
  const { clock, radio, scheduler, lapsed } = setup()
  scheduler.page('T2', { tracking: false })
  await clock.advance(59_000)
  t.same(radio.sent, ['0s page T2 60'])
  t.same(lapsed, [])
  await clock.advance(1_000)
  t.same(lapsed, ['T2'])
  t.notOk(scheduler.isPaging('T2'))
  t.equal(clock.pending, 0)
})

t.test('once with a shorter lease (resumed after a restart)', async (t) => {
  const { clock, radio, scheduler, lapsed } = setup()
  scheduler.page('T2', { tracking: false, leaseMs: 12_500 })
  await clock.advance(12_500)
  t.same(radio.sent, ['0s page T2 13'])
  t.same(lapsed, ['T2'])
})

t.test('once: a failed send is retried within the lease, up to 3 attempts', async (t) => {
  const { clock, radio, scheduler } = setup()
  radio.failNextPages(5)
  scheduler.page('T3', { tracking: false })
  await clock.advance(60_000)
  t.same(radio.sent, ['0s page T3 60', '10s page T3 50', '20s page T3 40'])
})

t.test('tracking keeps its cadence through failures', async (t) => {
  const { clock, radio, scheduler } = setup()
  radio.failNextPages(2)
  scheduler.page('T3', { tracking: true })
  await clock.advance(30_000)
  t.same(radio.sent, ['0s page T3 30', '10s page T3 30', '20s page T3 30', '30s page T3 30'])
  t.equal(scheduler.paging()[0].consecutiveFailures, 0, 'reset by the success')
})

t.test('one page in flight per tracker: a refresh due while a send is out is skipped; a stop does not wait for it', async (t) => {
  const { clock, radio, scheduler } = setup()
  const release = radio.holdSends()
  scheduler.page('T4', { tracking: true })
  scheduler.page('T5', { tracking: true })
  await clock.advance(35_000)
  t.same(radio.sent, ['0s page T4 30', '0s page T5 30'], 'no pile-up while the radio does not answer')
  t.equal(radio.maxInFlight, 2, 'never two pages for one tracker (two trackers in parallel)')
  scheduler.stop('T4')
  await clock.advance(0)
  t.ok(radio.sent.includes('35s stop T4'), 'the stop is not queued behind the stuck page')
  release()
  await clock.advance(10_000)
  t.notOk(
    radio.sent.some((line) => line.includes('page T4') && !line.startsWith('0s')),
    'no page for T4 after its stop',
  )
  t.ok(radio.sent.includes('40s page T5 30'), 'T5 keeps its 10 s cadence once the radio answers')
})

t.test('a page after a stop drops the stop repeats still pending', async (t) => {
  const { clock, radio, scheduler } = setup()
  scheduler.page('T6', { tracking: true })
  scheduler.stop('T6')
  await clock.advance(1_000)
  scheduler.page('T6', { tracking: false })
  await clock.advance(61_000)
  t.same(radio.sent, ['0s stop T6', '1s page T6 60'], 'a page superseded before it went out is dropped')
})

t.test('close clears every timer and refuses new work', async (t) => {
  const { clock, radio, scheduler } = setup()
  scheduler.page('T7', { tracking: true })
  scheduler.page('T8', { tracking: false })
  scheduler.close()
  t.equal(clock.pending, 0)
  scheduler.page('T9', { tracking: true })
  await clock.advance(60_000)
  t.same(radio.sent, ['0s page T7 30', '0s page T8 60'])
})

t.test('failed sends for many trackers are logged once per kind and minute, with a count, not once each', async (t) => {
  const { clock, radio, scheduler, memory } = setup()
  const failures = () => memory.lines().filter((line) => String(line.msg).startsWith('paging send failed'))
  radio.failNextPages(1_000)
  // An API client paging 200 orders bound to trackers that never answer.
  for (let i = 1; i <= 200; i++) scheduler.page(`T${i}`, { tracking: false })
  await scheduler.idle()
  t.equal(failures().length, 1, 'the first failure is logged in full')
  t.match(failures()[0], { level: 40, tracker: 'T1', command: 'page', kind: 'page: no ack' })
  await clock.advance(60_000)
  await scheduler.idle()
  const summaries = failures().filter((line) => line.msg === 'paging send failed (repeated)')
  t.equal(failures().length, 2, 'then one line for the minute')
  t.match(summaries, [{ kind: 'page: no ack', repeated: Number }])
  t.ok((summaries[0].repeated as number) >= 199, `${summaries[0].repeated} failures counted in it`)
  scheduler.close()
})
