// FleetService's change sink across a crash: the gateway records again, with the same seq,
// the changes the change log's watermark had not yet covered; the radio and the rollout step
// in its status message, against a real Mosquitto.
import t from 'tap'
import { until } from '../../helpers/until.ts'
import { gate } from '../../runtime/hq/stack.ts'
import { fleetService, order, subscriber } from './fixtures.ts'
import { startBroker } from './mosquitto.ts'

t.test('a change recorded again after a crash while it still waits for the broker is kept once, and start-up goes on', async (t) => {
  // Never started: the broker is unreachable, so the change stays in the outbox.
  const { service, changes } = await fleetService({ enabled: true, brokerUrl: 'mqtt://127.0.0.1:9', siteId: 'site-1' })
  const first = await changes.record('ORDER_CREATED', order(1))
  t.equal(service.status().backlog, 1)
  await t.resolves(changes.record('ORDER_CREATED', order(1), { seq: first.seq, at: first.at }), 'recorded again at start-up (OrdersService.resume)')
  t.equal(service.status().backlog, 1, 'one entry for the one change')
})

t.test("the status carries the site's zone and target, so HQ needs neither in its config", async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const hq = await subscriber(broker.url, 'chain/site-z/status')
  t.teardown(() => hq.close())
  const { service } = await fleetService(
    { enabled: true, brokerUrl: broker.url, siteId: 'site-z', topicPrefix: 'chain' },
    { timezone: 'Asia/Kolkata', targetSeconds: 420 },
  )
  service.start()
  t.teardown(() => service.stop())
  await until(() => hq.received.some((m) => m.body.online === true), 'online status')
  t.match(hq.received.at(-1)!.body, { siteId: 'site-z', online: true, timezone: 'Asia/Kolkata', targetSeconds: 420 })
  t.notOk('upgrade' in hq.received.at(-1)!.body, 'a box never upgraded says nothing of upgrades')
})

t.test('the status carries the last upgrade and why it was rolled back (gateway upgrade)', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const hq = await subscriber(broker.url, 'chain/site-u/status')
  t.teardown(() => hq.close())
  const upgrade = {
    kind: 'upgrade',
    state: 'rolled-back',
    from: '1.0.0',
    to: '1.1.0',
    reason: '1.1.0 failed its health check: restart loop',
    at: '2026-12-02T04:00:00.000Z',
  }
  const { service } = await fleetService({ enabled: true, brokerUrl: broker.url, siteId: 'site-u', topicPrefix: 'chain' }, { upgrade })
  service.start()
  t.teardown(() => service.stop())
  await until(() => hq.received.some((m) => m.body.online === true), 'online status')
  t.same(hq.received.at(-1)!.body.upgrade, upgrade)
})

t.test('the retained status says whether the radio is up, and is published again at once when it moves', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const hq = await subscriber(broker.url, 'chain/site-r/status')
  t.teardown(() => hq.close())
  // A manual clock: the periodic refresh never fires here, so every status after the first
  // comes from statusChanged().
  const { service } = await fleetService({ enabled: true, brokerUrl: broker.url, siteId: 'site-r', topicPrefix: 'chain' })
  let up = false
  service.reportRadio({ kind: 'zigbee', up: () => up })
  service.start()
  t.teardown(() => service.stop())
  await until(() => hq.received.some((m) => m.body.online === true), 'online status')
  t.match(hq.received.at(-1)!.body, { siteId: 'site-r', online: true, radioUp: false, radioKind: 'zigbee' })

  up = true
  service.statusChanged()
  await until(() => hq.received.at(-1)!.body.radioUp === true, 'radio up announced')
  up = false
  service.statusChanged()
  await until(() => hq.received.at(-1)!.body.radioUp === false, 'radio down announced')

  // A newcomer (HQ starting later) reads the latest radio state from the retained message.
  const late = await subscriber(broker.url, 'chain/site-r/status')
  t.teardown(() => late.close())
  await until(() => late.received.length > 0, 'retained status')
  t.match(late.received[0], { retain: true, body: { online: true, radioUp: false } })

  // Offline messages do not vouch for the radio.
  await service.stop()
  await until(() => late.received.some((m) => m.body.online === false), 'offline status')
  const offline = late.received.at(-1)!.body
  t.match(offline, { online: false, reason: 'stopped', radioKind: 'zigbee' })
  t.notOk('radioUp' in offline)
})

t.test('statusChanged() before the bridge is connected, or with the fleet disabled, publishes nothing and throws nothing', async (t) => {
  const disabled = await fleetService({})
  t.doesNotThrow(() => disabled.service.statusChanged())
  const unreachable = await fleetService({ enabled: true, brokerUrl: 'mqtt://127.0.0.1:9', siteId: 'site-x' })
  unreachable.service.reportRadio({ kind: 'simulated', up: () => true })
  t.doesNotThrow(() => unreachable.service.statusChanged())
})

t.test('the rollout step is in the online status only: the last will, written at connection time, would carry one since left', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const hq = await subscriber(broker.url, 'chain/site-w/status')
  t.teardown(() => hq.close())
  // Through a gate the test can cut: the broker then publishes the last will.
  const line = await gate(broker.port)
  t.teardown(() => line.stop())
  const { service } = await fleetService({
    enabled: true,
    brokerUrl: line.url,
    siteId: 'site-w',
    topicPrefix: 'chain',
    reconnectMs: 60_000,
    maxReconnectMs: 60_000,
  })
  let step = 'downloading'
  let disconnections = 0
  service.attachRollout({ handle: () => {}, report: () => ({ rolloutId: 1, attempt: 1, state: step }), disconnected: () => disconnections++ })
  service.start()
  t.teardown(() => service.stop())
  await until(() => hq.received.some((m) => m.body.online === true), 'online status')
  t.match(hq.received.at(-1)!.body.rollout, { state: 'downloading' })
  step = 'upgrading'
  service.statusChanged()
  await until(() => hq.received.at(-1)!.body.rollout?.state === 'upgrading', 'the next step published')
  line.close()
  await until(() => hq.received.some((m) => m.body.online === false), 'the last will')
  const will = hq.received.at(-1)!.body
  t.match(will, { online: false, reason: 'connection lost' })
  t.notOk('rollout' in will, "the will says nothing of the rollout (it was written when the step was 'downloading')")
  await until(() => disconnections === 1, 'the agent told the connection is lost')
})
