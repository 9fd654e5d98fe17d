// The webhook dispatcher and a clock the gateway knows is wrong: nothing is attempted while
// the clock gate says so; 'trusted' sends the backlog; a retry whose time lies far ahead
// because the clock went back waits no longer than the schedule's longest delay.
import t from 'tap'
import { SystemClock } from '../../../lib/kernel/clock.ts'
import { EventBus } from '../../../lib/kernel/events.ts'
import { parseConfig } from '../../../lib/config.ts'
import { buildServices } from '../../../runtime/wiring/services.ts'
import { WebhookDispatcher } from '../../../runtime/workers/webhook-dispatcher.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { sampleOrder, startReceiver } from '../../helpers/webhooks.ts'
import { generousMs, until } from '../../helpers/until.ts'

const retrySchedule = [20, 40, 80]

t.test('held while the clock is not trusted, sent once it is', async (t) => {
  const logs = memoryLogger()
  const clock = new SystemClock()
  const config = parseConfig({ dataDir: '/nonexistent', webhooks: { allowLoopback: true, retrySchedule, timeoutMs: generousMs } })
  const services = await buildServices({ config, clock, log: logs.log, inMemory: true })
  const events = new EventBus<{ trusted: undefined }>()
  let trusted = false
  const gate = { trusted: () => trusted, on: (event: 'trusted', listener: () => unknown) => events.on(event, listener) }
  const dispatcher = new WebhookDispatcher({ webhooks: services.webhooks, clock, log: logs.log, retrySchedule, clockGate: gate })
  const receiver = await startReceiver()
  t.teardown(async () => {
    await dispatcher.stop()
    services.webhooks.close()
    await receiver.close()
  })
  await services.webhooks.register(receiver.url, 'v2')
  dispatcher.start()
  for (const name of [1, 2, 3]) await services.changes.record('ORDER_CREATED', sampleOrder(name, clock.now()))
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(receiver.posts().length, 0, 'nothing attempted')
  t.equal(services.webhooks.outbox.backlog(receiver.url), 3)

  trusted = true
  events.emit('trusted', undefined)
  await until(() => services.webhooks.outbox.backlog(receiver.url) === 0, 'the backlog delivered')
  t.same(
    receiver.posts().map((p) => p.seq),
    [1, 2, 3],
  )
})

t.test('a retry due far ahead (the clock went back) waits at most the longest delay', async (t) => {
  const logs = memoryLogger()
  const clock = new SystemClock()
  const config = parseConfig({ dataDir: '/nonexistent', webhooks: { allowLoopback: true, retrySchedule, timeoutMs: generousMs } })
  const services = await buildServices({ config, clock, log: logs.log, inMemory: true })
  const receiver = await startReceiver()
  await services.webhooks.register(receiver.url, 'v2')
  await services.changes.record('ORDER_CREATED', sampleOrder(1, clock.now()))
  // As if scheduled before the gateway clock was moved back two hours.
  const entry = services.webhooks.outbox.head(receiver.url)!
  await services.webhooks.outbox.reschedule(entry, 1, clock.now() + 2 * 3_600_000)
  const dispatcher = new WebhookDispatcher({ webhooks: services.webhooks, clock, log: logs.log, retrySchedule })
  t.teardown(async () => {
    await dispatcher.stop()
    services.webhooks.close()
    await receiver.close()
  })
  dispatcher.start()
  // The retry was due two hours ahead; the longest delay is 80 ms. The wait's limit (a minute,
  // tests/helpers/until.ts) tells the two apart with room for a busy machine.
  await until(() => receiver.posts().length === 1, 'the retry sent within the schedule')
  t.pass('sent')
})
