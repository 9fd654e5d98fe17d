// FleetService's change sink across a crash: the gateway records again, with the same seq,
// the changes the change log's watermark had not yet covered.
import t from 'tap'
import { fleetService, order } from './fixtures.ts'

t.test('a change recorded again after a crash while it still waits for the broker is kept once, and start-up goes on', async (t) => {
  // Never started: the broker is unreachable, so the change stays in the outbox.
  const { service, changes } = await fleetService({ enabled: true, brokerUrl: 'mqtt://127.0.0.1:9', siteId: 'site-1' })
  const first = await changes.record('ORDER_CREATED', order(1))
  t.equal(service.status().backlog, 1)
  await t.resolves(changes.record('ORDER_CREATED', order(1), { seq: first.seq, at: first.at }), 'recorded again at start-up (OrdersService.resume)')
  t.equal(service.status().backlog, 1, 'one entry for the one change')
})
