// The TypeScript client (clients/typescript) against a real gateway on a loopback port: a POS's
// day in calls (create, list, page, clear, history with filters, statistics), a webhook whose
// signature it verifies, and the WebSocket feed, which reconnects and resumes by seq.
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { GatewayError, orderFeed, posClient, verifyWebhook, type OrderChange, type Snapshot } from '../../../clients/typescript/src/client.ts'
import { parseConfig } from '../../../lib/config.ts'
import { startGateway } from '../../../runtime/wiring/main.ts'
import { firstToken } from '../../helpers/browser.ts'
import { answerProblem, serverFrameProblem } from '../../helpers/documented-responses.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'
import { startReceiver } from '../../helpers/webhooks.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'client-ts-'))
const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, radio: { kind: 'simulated' }, mdns: { enabled: false }, webhooks: { allowLoopback: true } })
const gateway = await startGateway({ config, log: memoryLogger('warn').log })
t.teardown(async () => {
  await gateway.stop()
  rmSync(dataDir, { recursive: true, force: true })
})
const baseUrl = `http://127.0.0.1:${gateway.port}`
const token = await firstToken(gateway, dataDir, 'pos')
const pos = posClient({ baseUrl, token })
// Every answer the client gets over real HTTP is held to the document too (tests/helpers/documented-responses.ts).
const answerProblems: string[] = []
pos.api.use({
  onResponse: async ({ request, response }) => {
    const problem = await answerProblem(request, response)
    if (problem) answerProblems.push(problem)
  },
})

t.test('a POS day: create, list, page, clear, history, statistics; a webhook verified', async (t) => {
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  const registered = await pos.registerWebhook(receiver.url)
  const secret = registered.webhook.secret
  t.match(secret, /^whsec_/)

  const created = await pos.create(4711, 'TO_GO')
  t.equal(created.name, '4711')
  t.equal(created.state, 'started')
  t.ok((await pos.list()).items!.some((o) => o.uuid === created.uuid))
  // An order without a tracker cannot be paged: the error envelope is thrown.
  const refused = await pos.page(4711).then(
    () => undefined,
    (error: GatewayError) => error,
  )
  t.ok(refused instanceof GatewayError)
  t.equal(refused?.status, 404)
  t.equal(refused?.returnCode, -13)
  const cleared = await pos.clear(4711)
  t.equal(cleared.state, 'cleared')
  const history = await pos.history({ limit: 10, order_type: 'TO_GO' })
  t.ok(history.items!.some((o) => o.uuid === created.uuid))
  t.type((await pos.statistics()).ordersToday, 'number')

  await until(() => receiver.posts().length >= 2, 'two deliveries', 30_000)
  const delivery = receiver.requests.find((r) => r.method === 'POST')!
  const payload = verifyWebhook(secret!, delivery.body, delivery.headers)
  t.equal(payload.uuid, created.uuid)
  t.equal(payload.changeType, 'ORDER_CREATED')
  t.throws(() => verifyWebhook(secret!, delivery.body.replace('4711', '4712'), delivery.headers), 'a changed body does not verify')
})

t.test('the feed: snapshot, changes in seq order, reconnect without loss or repeat', async (t) => {
  const snapshots: Snapshot[] = []
  const changes: OrderChange[] = []
  // The feed goes through a TCP proxy, so the test can drop its connection as a network would.
  const sockets = new Set<net.Socket>()
  const proxy = net.createServer((inbound) => {
    const outbound = net.connect(gateway.port, '127.0.0.1')
    for (const s of [inbound, outbound]) {
      sockets.add(s)
      s.on('error', () => {})
      s.on('close', () => sockets.delete(s))
    }
    inbound.pipe(outbound).pipe(inbound)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => proxy.close())
  const proxied = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`
  const checked =
    <F>(push: (frame: F) => void) =>
    (frame: F) => {
      t.equal(serverFrameProblem(frame), undefined, 'a frame the document describes')
      push(frame)
    }
  const feed = orderFeed({
    baseUrl: proxied,
    token,
    onSnapshot: checked((s: Snapshot) => snapshots.push(s)),
    onChange: checked((c: OrderChange) => changes.push(c)),
    retryDelays: [50],
  })
  t.teardown(() => feed.close())
  await until(() => snapshots.length === 1, 'the snapshot', 30_000)
  await pos.create(21, 'ON_PREMISE')
  await until(() => changes.some((c) => c.name === '21' && c.type === 'ORDER_CREATED'), 'order 21', 30_000)
  // Drop every WebSocket connection: the feed reconnects and its new snapshot holds order 22.
  for (const socket of sockets) socket.destroy()
  await pos.create(22, 'TO_GO')
  await until(() => snapshots.length === 2, 'the snapshot after reconnecting', 30_000)
  const seen = [...snapshots[1]!.items.map((o) => o.name), ...changes.map((c) => c.name)]
  t.ok(seen.includes('22'), 'order 22 is in the new snapshot or a change')
  const seqs = changes.map((c) => c.seq)
  t.same(
    seqs,
    [...new Set(seqs)].sort((a, b) => a - b),
    'no change applied twice, in seq order',
  )
  t.equal(feed.seq, Math.max(snapshots[1]!.seq, ...seqs))
})

t.test('every answer the typed client received is the documented one', async (t) => {
  t.same(answerProblems, [])
})
