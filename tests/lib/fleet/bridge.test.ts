// The bridge against a real Mosquitto on a loopback port: seq order, retained status, outage
// and recovery, refused credentials.
import t from 'tap'
import net from 'node:net'
import { connect } from 'mqtt'
import { makePasswordFile, startBroker } from './mosquitto.ts'
import { until } from '../../helpers/until.ts'
import { fleetService, firstArrivals, order, subscriber } from './fixtures.ts'

const prefix = 'chain'

t.test('disabled: records nothing and says so', async (t) => {
  const { service, changes } = await fleetService({})
  t.same(service.status(), { state: 'disabled', backlog: 0, lastError: null, lastPublishedSeq: null })
  await changes.record('ORDER_CREATED', order(1))
  t.equal(service.status().backlog, 0)
  service.start()
  await service.stop()
  t.equal(service.status().state, 'disabled')
})

t.test('publishes changes and summaries in seq order with a retained status', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const hq = await subscriber(broker.url, `${prefix}/+/#`)
  t.teardown(() => hq.close())
  const { service, changes } = await fleetService({ enabled: true, brokerUrl: broker.url, siteId: 'site-1', topicPrefix: prefix })
  t.equal(service.status().state, 'connecting')
  // Recorded before the bridge connects: kept in the outbox, published once connected.
  await changes.record('ORDER_CREATED', order(1))
  t.equal(service.status().backlog, 1)
  service.start()
  t.teardown(() => service.stop())
  for (let name = 2; name <= 8; name++) {
    await changes.record('ORDER_CREATED', order(name))
    await changes.record('ORDER_CLEARED', order(name, { state: 'cleared' }))
  }
  await until(() => hq.on('/events').length >= 15 && hq.on('/history').length >= 7, 'all messages')
  const events = hq.on('/events').map((m) => m.body.seq)
  t.same(
    events,
    Array.from({ length: 15 }, (_, i) => i + 1),
    'every change once, in seq order',
  )
  t.same(
    hq.on('/history').map((m) => m.body.seq),
    [3, 5, 7, 9, 11, 13, 15],
    'summaries carry the seq of their clearing',
  )
  t.ok(hq.received.every((m) => m.topic.startsWith(`${prefix}/site-1/`)))
  const first = hq.on('/events')[0].body
  t.equal(first.type, 'ORDER_MODIFIED')
  t.equal(first.change, 'ORDER_CREATED')
  t.equal(hq.on('/history')[0].body.type, 'ORDER_SUMMARY')
  await until(() => service.status().backlog === 0, 'empty backlog')
  t.same(service.status(), { state: 'connected', backlog: 0, lastError: null, lastPublishedSeq: 15 })

  // A newcomer gets the retained status at once.
  const late = await subscriber(broker.url, `${prefix}/site-1/status`)
  t.teardown(() => late.close())
  await until(() => late.received.length > 0, 'retained status')
  t.equal(late.received[0].retain, true)
  t.match(late.received[0].body, { siteId: 'site-1', online: true, deviceId: 'TG-TEST' })

  // A clean stop marks the site offline, retained.
  await service.stop()
  await until(() => late.received.some((m) => m.body.online === false), 'offline status')
  t.match(late.received.at(-1)!.body, { online: false, reason: 'stopped' })
})

t.test('broker down: changes wait in the outbox and follow in seq order once it is back', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const hq = await subscriber(broker.url, `${prefix}/+/#`, { clientId: 'hq-outage', clean: false })
  t.teardown(() => hq.close())
  const { service, changes, clock } = await fleetService({
    enabled: true,
    brokerUrl: broker.url,
    siteId: 'site-2',
    topicPrefix: prefix,
    reconnectMs: 1000,
  })
  service.start()
  t.teardown(() => service.stop())
  await until(() => service.status().state === 'connected', 'connected')
  for (let name = 1; name <= 5; name++) await changes.record('ORDER_CREATED', order(name))
  await until(() => hq.on('/events').length >= 5, 'first burst')

  await broker.stop()
  await until(() => service.status().state === 'down', 'state down')
  t.match(service.status().lastError, /closed/)
  for (let name = 6; name <= 12; name++) await changes.record('ORDER_CREATED', order(name))
  t.equal(service.status().backlog, 7)
  t.equal(service.status().lastPublishedSeq, 5)

  // Reconnect attempts follow the Clock: the broker is still away, so the state stays down.
  await clock.advance(1000)
  await until(() => service.status().state === 'down' && clock.pending > 0, 'retry failed')
  await broker.start()
  await clock.advance(2000)
  await until(() => service.status().state === 'connected', 'reconnected')
  await until(() => service.status().backlog === 0, 'backlog drained')
  t.equal(service.status().lastPublishedSeq, 12)
  await until(() => firstArrivals(hq.on('/events').map((m) => m.body.seq)).distinct.length === 12, 'subscriber caught up')
  const { distinct, outOfOrder } = firstArrivals(hq.on('/events').map((m) => m.body.seq))
  t.same(
    distinct,
    Array.from({ length: 12 }, (_, i) => i + 1),
  )
  t.same(outOfOrder, [])

  // The status announced the backlog on reconnect, and its end once caught up.
  await until(() => hq.on('/status').at(-1)?.body.backlog === 0 && hq.on('/status').at(-1)?.body.lastPublishedSeq === 12, 'caught-up status')
  t.ok(
    hq.on('/status').some((m) => m.body.backlog === 7 && m.body.lastPublishedSeq === 5),
    'backlog announced on reconnect',
  )
  // And it is refreshed on the Clock while connected.
  const statuses = hq.on('/status').length
  await clock.advance(60_000)
  await until(() => hq.on('/status').length > statuses, 'periodic status')
})

t.test('a wrong password is reported as auth-failed and retried, not a crash', async (t) => {
  const dir = t.testdir()
  const passwordFile = makePasswordFile(dir, 'site-3', 'right')
  const broker = await startBroker({ dir, anonymous: false, lines: [`password_file ${passwordFile}`] })
  t.teardown(() => broker.stop())
  const { service, changes, clock } = await fleetService({
    enabled: true,
    brokerUrl: broker.url,
    siteId: 'site-3',
    username: 'site-3',
    password: 'wrong',
    reconnectMs: 500,
  })
  service.start()
  t.teardown(() => service.stop())
  await until(() => service.status().state === 'auth-failed', 'auth-failed')
  t.match(service.status().lastError, /bad user name or password|not authorized/)
  await changes.record('ORDER_CREATED', order(1))
  t.equal(service.status().backlog, 1, 'changes are still kept')
  // Still refused at the next attempt: the state stays auth-failed (never flips to connecting).
  await clock.advance(500)
  await until(() => clock.pending > 0, 'next retry scheduled')
  t.equal(service.status().state, 'auth-failed')
})

t.test('the right password connects', async (t) => {
  const dir = t.testdir()
  const passwordFile = makePasswordFile(dir, 'site-4', 'right')
  const broker = await startBroker({ dir, anonymous: false, lines: [`password_file ${passwordFile}`] })
  t.teardown(() => broker.stop())
  const { service } = await fleetService({ enabled: true, brokerUrl: broker.url, siteId: 'site-4', username: 'site-4', password: 'right' })
  service.start()
  t.teardown(() => service.stop())
  await until(() => service.status().state === 'connected', 'connected')
  t.equal(service.status().lastError, null)
})

t.test('a link cut mid-burst: in-flight changes come again with their seq, never out of order', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  // A loopback proxy between gateway and broker whose connections the test can cut.
  const sockets = new Set<net.Socket>()
  const proxy = net.createServer((inbound) => {
    const outbound = net.connect(broker.port, '127.0.0.1')
    for (const socket of [inbound, outbound]) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => sockets.delete(socket))
    }
    inbound.pipe(outbound).pipe(inbound)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => proxy.close(resolve)))
  const proxyUrl = `mqtt://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`

  const hq = await subscriber(broker.url, `${prefix}/+/events`)
  t.teardown(() => hq.close())
  const { service, changes, clock } = await fleetService({ enabled: true, brokerUrl: proxyUrl, siteId: 'site-cut', topicPrefix: prefix, reconnectMs: 100 })
  service.start()
  t.teardown(() => service.stop())
  await until(() => service.status().state === 'connected', 'connected')
  const burst = Array.from({ length: 60 }, (_, i) => changes.record('ORDER_CREATED', order(i + 1)))
  await until(() => hq.received.length >= 5, 'part of the burst')
  for (const socket of sockets) socket.destroy()
  await Promise.all(burst)
  await until(() => service.status().state === 'down', 'down after the cut')
  await clock.advance(100)
  await until(() => service.status().state === 'connected' && service.status().backlog === 0, 'caught up')
  await until(() => firstArrivals(hq.received.map((m) => m.body.seq)).distinct.length === 60, 'all at hq')
  const { distinct, outOfOrder } = firstArrivals(hq.received.map((m) => m.body.seq))
  t.same(outOfOrder, [])
  t.same(
    distinct,
    Array.from({ length: 60 }, (_, i) => i + 1),
  )
  const bySeq = new Map<number, string>()
  for (const message of hq.received) {
    const text = JSON.stringify(message.body)
    if (bySeq.has(message.body.seq)) t.equal(text, bySeq.get(message.body.seq), `copy of seq ${message.body.seq} is identical`)
    bySeq.set(message.body.seq, text)
  }
  t.comment(`${hq.received.length - 60} duplicates after the cut`)
})

t.test('headquarters asks for a replay: the same bytes again, within the window and the budget', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  // Headquarters' side: raw payloads, and the replay requests it sends.
  const hq = connect(broker.url, { clientId: 'hq-replay', protocolVersion: 4, reconnectPeriod: 0 })
  t.teardown(() => hq.endAsync(true))
  const raw: { topic: string; payload: string }[] = []
  hq.on('message', (topic, payload) => raw.push({ topic, payload: payload.toString() }))
  await new Promise<void>((resolve) => hq.once('connect', () => resolve()))
  await hq.subscribeAsync(`${prefix}/site-r/#`, { qos: 1 })
  const { service, changes, clock } = await fleetService({
    enabled: true,
    brokerUrl: broker.url,
    siteId: 'site-r',
    topicPrefix: prefix,
    replayWindow: 6,
    replayPerMinute: 5,
  })
  service.start()
  t.teardown(() => service.stop())
  await until(() => service.status().state === 'connected', 'connected')
  for (let name = 1; name <= 5; name++) {
    await changes.record('ORDER_CREATED', order(name))
    await changes.record('ORDER_CLEARED', order(name, { state: 'cleared' }))
  }
  const onTopic = (suffix: string) => raw.filter((m) => m.topic.endsWith(suffix))
  await until(() => onTopic('/events').length === 10 && onTopic('/history').length === 5 && service.status().backlog === 0, 'published')
  const events = onTopic('/events').map((m) => JSON.parse(m.payload))
  t.same(
    events.map((e) => [e.prevSeq, e.seq]),
    Array.from({ length: 10 }, (_, i) => [i === 0 ? null : i, i + 1]),
    'each change names the one before it',
  )
  t.same(
    onTopic('/history').map((m) => JSON.parse(m.payload).prevSeq),
    [1, 3, 5, 7, 9],
  )
  const firstCopies = new Map(raw.filter((m) => /\/(events|history)$/.test(m.topic)).map((m) => [`${m.topic} ${JSON.parse(m.payload).seq}`, m.payload]))
  // Window 6 (pruned one at a time, the slack for 6 is 1): seqs 5..10 are held. The next
  // periodic status says so.
  await clock.advance(60_000)
  await until(() => JSON.parse(onTopic('/status').at(-1)!.payload).replayAfter === 4, 'the status says what can be replayed')

  raw.length = 0
  await hq.publishAsync(`${prefix}/site-r/replay`, JSON.stringify({ from: 2, to: 7 }), { qos: 1 })
  // Budget 5 a minute: the request costs one, so 4 changes: 5, 6, 7 (2..4 are gone), and the history of 6.
  await until(() => onTopic('/events').length === 3 && onTopic('/history').length === 1, 'the replay')
  for (const m of raw.filter((m) => /\/(events|history)$/.test(m.topic)))
    t.equal(m.payload, firstCopies.get(`${m.topic} ${JSON.parse(m.payload).seq}`), `replayed ${m.topic} byte for byte`)
  t.same(
    onTopic('/events').map((m) => JSON.parse(m.payload).seq),
    [5, 6, 7],
  )
  await until(() => onTopic('/status').length > 0, 'a status right after the replay')
  t.match(JSON.parse(onTopic('/status').at(-1)!.payload), { online: true, replayAfter: 4, lastPublishedSeq: 10 })

  // The budget is spent: a further request (or a malformed one) publishes nothing, and the
  // gateway goes on publishing its own changes.
  raw.length = 0
  await hq.publishAsync(`${prefix}/site-r/replay`, JSON.stringify({ from: 8, to: 10 }), { qos: 1 })
  await hq.publishAsync(`${prefix}/site-r/replay`, 'not json', { qos: 1 })
  await changes.record('ORDER_CREATED', order(6))
  await until(() => onTopic('/events').length === 1, 'the new change')
  t.match(JSON.parse(onTopic('/events')[0]!.payload), { seq: 11, prevSeq: 10 })
  await until(() => service.status().backlog === 0, 'drained')
  t.same(onTopic('/events').length, 1, 'nothing replayed beyond the budget')
})
