// A real gateway (HTTP on loopback, files in a tmp data dir) is stopped and started again
// on the same data dir: active orders, their tracker bindings, the tracker inventory and
// paging all come back.
import t from 'tap'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import type { SimulatedRadio } from '../../lib/radio/simulated.ts'
import type { RunningGateway } from '../../runtime/wiring/main.ts'
import { startCheckedGateway } from '../helpers/checked-gateway.ts'

async function start(dataDir: string): Promise<RunningGateway> {
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false } })
  return startCheckedGateway({ config, log: memoryLogger('warn').log })
}

async function http(gw: RunningGateway, route: string, body?: unknown, token?: string) {
  const [method, target] = route.split(' ')
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const response = await fetch(`http://127.0.0.1:${gw.port}${target}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as any }
}

t.test('active orders, bindings, inventory and paging survive a restart', async (t) => {
  const dataDir = t.testdir()
  const first = await start(dataDir)
  let second: RunningGateway | undefined
  t.teardown(async () => {
    await first.stop().catch(() => {})
    await second?.stop()
  })
  const radio = first.services.radio as SimulatedRadio
  first.services.button.press()
  const token = (await http(first, 'GET /api/v2/accesstoken/generate?name=restart')).body.token?.token as string | undefined

  radio.startTracker(1)
  radio.startTracker(2, { toGo: true })
  await first.services.orders.idle()
  radio.placeTracker(1, 6)
  await first.services.orders.idle()
  t.equal((await http(first, 'POST /api/v1/activeorders?dummy_tracker_address=true', { name: 30 })).status, 200)
  t.equal((await http(first, 'POST /api/v2/activeorders', { name: 31, orderType: 'TO_GO' }, token)).status, 200)
  t.equal((await http(first, 'POST /api/v1/activeorders/2/page', { tracking: true })).status, 200)
  const before = first.services.orders.list()
  const inventory = first.services.trackers.list()
  t.equal(before.length, 4)
  t.same(
    inventory.map((r) => [r.number, r.order?.name]),
    [
      [1, 1],
      [2, 2],
    ],
  )
  const seq = first.services.changes.lastSeq

  await first.stop()
  second = await start(dataDir)
  t.same(second.services.orders.list(), before, 'every active order, field for field (uuid, state, tracker, paged)')
  t.same(second.services.trackers.list(), inventory, 'the tracker inventory and its bindings')
  t.ok(second.services.changes.lastSeq >= seq, 'seq never goes back')
  const radio2 = second.services.radio as SimulatedRadio
  t.ok(radio2.isBuzzing(2), 'the tracking page was re-armed')
  t.notOk(radio2.isBuzzing(1))
  const listed = await http(second, 'GET /api/v1/activeorders')
  t.equal(listed.body.count, '4')
  // The bindings work: the radio clears order 1 by its tracker after the restart.
  radio2.clearTracker(1)
  await second.services.orders.idle()
  t.same(
    second.services.orders.list().map((o) => o.name),
    [2, 30, 31],
  )
})
