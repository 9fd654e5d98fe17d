// WebhookService's change sink and registrations: a registration receives the changes
// numbered after it was made, so a change recorded again after a crash (its older seq) never
// reaches a URL registered since then, after newer ones.
import t, { type Test } from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { OrderChange } from '../../../lib/orders/types.ts'
import { Store } from '../../../lib/store/db.ts'
import { WebhookService } from '../../../lib/webhooks/service.ts'
import { sampleOrder, startReceiver } from '../../helpers/webhooks.ts'

async function setup(t: Test, store = new Store()) {
  const seq = { last: 0 }
  const webhooks = await WebhookService.open({
    config: parseConfig({ dataDir: '/nonexistent', webhooks: { allowLoopback: true } }),
    clock: new ManualClock(),
    log: memoryLogger('fatal').log,
    store,
    deviceId: 'TG-TEST',
    timezone: () => 'UTC',
    lastSeq: () => seq.last,
  })
  const first = await startReceiver('/first')
  const second = await startReceiver('/second')
  t.teardown(async () => {
    webhooks.close()
    await first.close()
    await second.close()
  })
  return { webhooks, seq, first: first.url, second: second.url, store }
}

const change = (seq: number): OrderChange => ({ seq, type: 'ORDER_MODIFIED', order: sampleOrder(1, 0), at: 0 })

t.test('a registration gets the changes numbered after it; an older one recorded again goes only to older registrations', async (t) => {
  const { webhooks, seq, first, second } = await setup(t)
  seq.last = 10
  await webhooks.register(first, 'v2')
  await webhooks.sink(change(10))
  t.equal(webhooks.outbox.backlog(first), 0, 'reserved before the registration: not its change')
  await webhooks.sink(change(11))
  t.equal(webhooks.outbox.backlog(first), 1)

  seq.last = 20
  await webhooks.register(second, 'v2')
  await webhooks.sink(change(15)) // recorded again after a crash, with its own seq
  t.equal(webhooks.outbox.backlog(first), 2, 'the first registration had it coming')
  t.equal(webhooks.outbox.backlog(second), 0, 'the second never sees seq go back')
  await webhooks.sink(change(21))
  t.same([webhooks.outbox.backlog(first), webhooks.outbox.backlog(second)], [3, 1])
  t.notOk('fromSeq' in webhooks.list()[0]!, 'bookkeeping, not shown in GET /api/v2/register')
})

t.test('re-enabled after a 410, a URL starts again from the changes after that', async (t) => {
  const { webhooks, seq, first } = await setup(t)
  await webhooks.register(first, 'v2')
  await webhooks.registry.patch(first, { state: 'disabled' })
  seq.last = 30
  await webhooks.register(first, 'v2')
  await webhooks.sink(change(25))
  t.equal(webhooks.outbox.backlog(first), 0)
  await webhooks.sink(change(31))
  t.equal(webhooks.outbox.backlog(first), 1)
})

t.test('a registration stored before the rule existed gets every change', async (t) => {
  const store = new Store()
  const { webhooks, seq, first } = await setup(t, store)
  seq.last = 50
  await webhooks.register(first, 'v2')
  // As a registration from before `fromSeq` reads back from its datafile.
  await (await store.collection('webhooks')).update({ url: first }, { $unset: { fromSeq: true } })
  webhooks.close()
  const reopened = await setup(t, store)
  await reopened.webhooks.sink(change(3))
  t.equal(reopened.webhooks.outbox.backlog(first), 1)
})

t.test('the signing key is made when first needed, once, and kept: a gateway without webhooks never makes it', async (t) => {
  const store = new Store()
  const { webhooks } = await setup(t, store)
  const keys = await store.collection('webhook-keys')
  t.equal((await keys.find({})).length, 0, 'opening the service makes no key')
  const [a, b] = await Promise.all([webhooks.jwks(), webhooks.jwks()])
  t.same(a, b, 'concurrent first calls share one key')
  t.equal((await keys.find({})).length, 1, 'made and stored once')
  const [jwk] = a.keys
  t.match(jwk, { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: /^[\w-]{43}$/ })
  t.notOk('d' in jwk, 'the JWKS document holds no private part')
  const reopened = await setup(t, store)
  t.same(await reopened.webhooks.jwks(), a, 'a restart signs with the stored key')
  const headers = await reopened.webhooks.headersFor(
    { url: 'http://x/', seq: 1, id: 'msg_1', body: '{}', attempts: 0, nextAttemptAt: 0, created: 0 },
    'whsec_c2VjcmV0',
    1_700_000_000_000,
  )
  t.equal(headers['webhook-key-id'], jwk.kid)
  t.match(headers['webhook-signature'], /^v1,\S+ v1a,\S+$/)
})
