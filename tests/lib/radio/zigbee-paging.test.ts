// Paging through the real herdsman Controller: every send bounded in time, without herdsman's
// send recovery, and a tracker's refusal counted as a failed page.
import t from 'tap'
import { Zcl } from 'zigbee-herdsman'
import { PageRefusedError } from '../../../lib/radio/zigbee-paging.ts'
import { joinAndSettle, setup, tracker } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'

const address = '00:12:4b:00:aa:bb:cc:dd'

async function withTracker(t: Parameters<typeof setup>[0]) {
  const context = await setup(t, { radio: { commandTimeoutMs: 3000 } })
  await context.radio.start()
  const adapter = context.fake.current!
  await joinAndSettle(context, adapter, tracker)
  adapter.sent.length = 0
  adapter.sendOptions.length = 0
  return { ...context, adapter }
}

t.test('pages and cancels go out once, without herdsman send recovery, with the command timeout', async (t) => {
  const { adapter, radio } = await withTracker(t)
  await radio.page(address, 30)
  await radio.cancel(address)
  t.same(adapter.sendOptions, [
    { timeout: 3000, disableRecovery: true },
    { timeout: 3000, disableRecovery: true },
  ])
})

t.test('a tracker answering with a failure status has not been paged', async (t) => {
  const { adapter, radio } = await withTracker(t)
  adapter.answerStatus = Zcl.Status.UNSUP_COMMAND
  const error = await radio.page(address, 30).then(
    () => undefined,
    (e: unknown) => e,
  )
  t.type(error, PageRefusedError)
  t.match((error as Error).message, /refused identify 30 s \(ZCL status 0x81\)/)
  await t.rejects(radio.cancel(address), PageRefusedError, 'a refused cancel fails too')
  adapter.answerStatus = Zcl.Status.SUCCESS
  await t.resolves(radio.page(address, 30))
})

t.test('a send that never completes is given up after its timeout, on the gateway clock', async (t) => {
  const { adapter, clock, radio } = await withTracker(t)
  adapter.hangSends = true
  const timersBefore = clock.pending
  let settled: unknown = 'pending'
  const page = radio.page(address, 30).then(
    () => (settled = 'resolved'),
    (error: unknown) => (settled = error),
  )
  await until(() => adapter.sendOptions.length === 1, 'the send')
  await clock.advance(3999)
  t.equal(settled, 'pending', 'within the command timeout and its grace')
  await clock.advance(1)
  await page
  t.match(settled, { message: /no answer within 4000 ms/ })
  t.equal(clock.pending, timersBefore, 'no timer left behind')
})
