import crypto from 'node:crypto'
import { createLocalJWKSet } from 'jose'
import { Webhook } from 'standardwebhooks'
import t, { type Test } from 'tap'
import { SystemClock } from '../../../lib/kernel/clock.ts'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { Store } from '../../../lib/store/db.ts'
import { WebhookService } from '../../../lib/webhooks/service.ts'
import { buildServices, type Services } from '../../../runtime/wiring/services.ts'
import { retryDelay, WebhookDispatcher } from '../../../runtime/workers/webhook-dispatcher.ts'
import { sampleOrder, startCanary, startReceiver, type Receiver } from '../../helpers/webhooks.ts'
import { generousMs, until } from '../../helpers/until.ts'

const retrySchedule = [20, 40, 80]

async function setup(t: Test, webhooks: Record<string, unknown> = {}) {
  const logs = memoryLogger()
  const clock = new SystemClock()
  // A generous per-attempt limit: on a busy machine a loopback post can take over a second,
  // and an attempt cut off after the receiver got it is sent again ("delivered once" fails).
  const config = parseConfig({ dataDir: '/nonexistent', webhooks: { allowLoopback: true, retrySchedule, timeoutMs: generousMs, ...webhooks } })
  const services = await buildServices({ config, clock, log: logs.log, inMemory: true })
  const dispatcher = new WebhookDispatcher({ webhooks: services.webhooks, clock, log: logs.log, retrySchedule })
  const receiver = await startReceiver()
  dispatcher.start()
  t.teardown(async () => {
    await dispatcher.stop()
    services.webhooks.close()
    await receiver.close()
  })
  return { services, dispatcher, receiver, clock, logs }
}

async function record(services: Services, names: number[]) {
  for (const name of names) {
    const type = name % 3 === 0 ? 'ORDER_MODIFIED' : 'ORDER_CREATED'
    await services.changes.record(type, sampleOrder(name, services.clock.now()))
  }
}

const seqs = (receiver: Receiver) => receiver.posts().map((p) => p.seq as number)
const contiguous = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)

t.test('every change is delivered once, in seq order, contiguous, signed', async (t) => {
  const { services, receiver } = await setup(t)
  const { secret } = await services.webhooks.register(receiver.url, 'v2')
  await record(services, contiguous(1, 40))
  // The receiver records a POST before the gateway has its answer: wait for the acknowledgements too.
  await until(() => receiver.posts().length >= 40 && services.webhooks.outbox.backlog(receiver.url) === 0, 'all deliveries')
  t.same(seqs(receiver), contiguous(1, 40))
  t.equal(services.webhooks.outbox.backlog(receiver.url), 0)

  const first = receiver.requests.find((r) => r.method === 'POST')!
  t.match(JSON.parse(first.body), {
    elapsedTime: 0,
    uuid: String,
    seq: 1,
    created: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/,
    orderType: 'ON_PREMISE',
    locationName: '',
    state: 'started',
    stateStarted: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/,
    type: 'ORDER_MODIFIED',
    name: '1',
    changeType: 'ORDER_CREATED',
  })
  const verifier = new Webhook(secret!)
  for (const request of receiver.requests.filter((r) => r.method === 'POST')) {
    t.doesNotThrow(() => verifier.verify(request.body, request.headers as Record<string, string>), `seq ${JSON.parse(request.body).seq} verifies`)
  }
  t.throws(() => verifier.verify(first.body.replace('"state":"started"', '"state":"cleared"'), first.headers as Record<string, string>), 'tampered body fails')
  t.throws(() => verifier.verify(first.body, { ...(first.headers as Record<string, string>), 'webhook-id': 'msg_other' }), 'other id fails')

  // The ed25519 entry verifies with the key from the JWKS document.
  const jwks = createLocalJWKSet(await services.webhooks.jwks())
  const key = crypto.KeyObject.from((await jwks({ alg: 'EdDSA', kid: first.headers['webhook-key-id'] as string })) as CryptoKey)
  const v1a = String(first.headers['webhook-signature'])
    .split(' ')
    .find((s) => s.startsWith('v1a,'))!
  const content = `${first.headers['webhook-id']}.${first.headers['webhook-timestamp']}.${first.body}`
  t.ok(crypto.verify(null, Buffer.from(content), key, Buffer.from(v1a.slice(4), 'base64')), 'v1a signature verifies')
  t.match(services.webhooks.list()[0], { state: 'active', lastSuccess: Number, backlog: 0 })
})

t.test('a receiver down for a while gets the whole backlog in order afterwards', async (t) => {
  const { services, receiver } = await setup(t)
  await services.webhooks.register(receiver.url, 'v2')
  let down = true
  let failures = 0
  receiver.respond = (request) => {
    if (request.method !== 'POST' || !down) return 200
    failures++
    return 503
  }
  await record(services, contiguous(1, 30))
  await until(() => failures >= 4, 'retries while down')
  t.match(services.webhooks.list()[0], { state: 'failing', backlog: 30, lastError: { message: 'HTTP 503' } })
  const attemptsWhileDown = failures
  t.ok(attemptsWhileDown < 20, `backoff spaces the attempts (${attemptsWhileDown})`)
  down = false
  await until(() => services.webhooks.outbox.backlog(receiver.url) === 0, 'catch-up')
  // The receiver records refused attempts too: they were all of seq 1, the head of the queue.
  const okSeqs = receiver.requests
    .filter((r) => r.method === 'POST')
    .map((r) => JSON.parse(r.body).seq)
    .slice(failures)
  t.same(okSeqs, contiguous(1, 30), 'every change, in order, once acknowledged')
  // Every attempt of the head entry carried the same webhook-id.
  const ids = new Set(receiver.requests.filter((r) => r.method === 'POST' && JSON.parse(r.body).seq === 1).map((r) => r.headers['webhook-id']))
  t.equal(ids.size, 1)
  t.match(services.webhooks.list()[0], { state: 'active', backlog: 0 })
  t.same(services.webhooks.attempts, { delivered: 30, failed: failures }, 'what /metrics counts: each delivery and each refused attempt')
})

t.test('a redirect is a failure and is never followed', async (t) => {
  const { services, receiver } = await setup(t)
  const canary = await startCanary()
  t.teardown(() => canary.close())
  await services.webhooks.register(receiver.url, 'v2')
  receiver.respond = (r) => (r.method === 'POST' ? { status: 307, headers: { location: `http://127.0.0.1:${canary.port}/` } } : 200)
  await record(services, [1])
  await until(() => services.webhooks.list()[0]!.lastError !== null, 'a failed attempt')
  t.match(services.webhooks.list()[0]!.lastError, { message: /redirect \(not followed\)/ })
  t.equal(canary.connections, 0)
})

t.test('410 Gone disables the registration and drops its backlog', async (t) => {
  const { services, receiver } = await setup(t)
  await services.webhooks.register(receiver.url, 'v2')
  receiver.respond = (r) => (r.method === 'POST' ? 410 : 200)
  await record(services, [1, 2, 3])
  await until(() => services.webhooks.list()[0]!.state === 'disabled', 'disabled')
  t.equal(services.webhooks.outbox.backlog(receiver.url), 0)
  await record(services, [4])
  t.equal(services.webhooks.outbox.backlog(receiver.url), 0, 'no new entries for a disabled URL')
  receiver.respond = () => 200
  await services.webhooks.register(receiver.url, 'v2')
  t.equal(services.webhooks.list()[0]!.state, 'active', 'registering again re-enables it')
})

t.test('a name rebound to loopback after registration is refused at connect time', async (t) => {
  const canary = await startCanary()
  const logs = memoryLogger()
  const clock = new SystemClock()
  let answer = '10.255.255.1'
  const webhooks = await WebhookService.open({
    config: parseConfig({ webhooks: { allowLoopback: false, retrySchedule, timeoutMs: 300 } }),
    clock,
    log: logs.log,
    store: new Store(),
    deviceId: 'TG-TEST',
    timezone: () => 'UTC',
    lastSeq: () => 0,
    resolver: async () => [{ address: answer, family: 4 }],
  })
  const dispatcher = new WebhookDispatcher({ webhooks, clock, log: logs.log, retrySchedule })
  t.teardown(async () => {
    await dispatcher.stop()
    webhooks.close()
    await canary.close()
  })
  const url = `http://rebind.test:${canary.port}/hook`
  // At registration the name pointed at a LAN address (which does not answer here: -30)...
  await t.rejects(webhooks.register(url, 'v2'), { name: 'DomainError', kind: 'CALLBACK_UNREACHABLE' })
  // ...so the registration is made as it would have been had that host answered.
  await webhooks.registry.add({
    url,
    secret: `whsec_${Buffer.alloc(24).toString('base64')}`,
    version: 'v2',
    created: clock.now(),
    state: 'active',
    lastSuccess: null,
    lastError: null,
    dropped: 0,
  })
  answer = '127.0.0.1'
  dispatcher.start()
  await webhooks.sink({ seq: 1, type: 'ORDER_CREATED', order: sampleOrder(1, clock.now()), at: clock.now() })
  await until(() => webhooks.list()[0]!.lastError !== null, 'a refused attempt')
  t.match(webhooks.list()[0], { state: 'failing', backlog: 1, lastError: { message: /rebind\.test resolves to 127\.0\.0\.1: loopback/ } })
  t.equal(canary.connections, 0, 'not a single connection reached the canary')
})

t.test('retry delays follow the schedule with ±20 % jitter, the last repeating', async (t) => {
  const schedule = [1000, 5000, 30000]
  t.equal(
    retryDelay(schedule, 1, () => 0.5),
    1000,
  )
  t.equal(
    retryDelay(schedule, 2, () => 0),
    4000,
  )
  t.equal(
    retryDelay(schedule, 3, () => 0.999999),
    36000,
  )
  t.equal(
    retryDelay(schedule, 9, () => 0.5),
    30000,
  )
})
