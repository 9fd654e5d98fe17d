// Paging follows durability: a page (or a stop) reaches the radio only once the write that
// records it is on disk. A real gateway process is killed (SIGKILL) after a page's writes are
// appended and before they are known durable (crash point crash-before-paging-is-durable,
// tests/runtime/fixtures/faulty-gateway.ts); the power cut is completed by cutting every
// datafile back to what it held before the request (the appends still in the page cache are
// what a power cut takes). The paged version is lost, so no tracker may have been paged for it,
// and the restarted gateway pages nothing either.
import { readdirSync, readFileSync, statSync, truncateSync, unlinkSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { parseConfig } from '../../lib/config.ts'
import { dummyTrackerAddress } from '../../lib/orders/service.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import { startFaultyGateway } from '../helpers/faulty-gateway.ts'
import { startCheckedGateway } from '../helpers/checked-gateway.ts'

/** The size of every NeDB datafile in the data dir. */
function datafileSizes(dataDir: string): Map<string, number> {
  const sizes = new Map<string, number>()
  for (const name of readdirSync(dataDir)) if (name.endsWith('.db')) sizes.set(name, statSync(path.join(dataDir, name)).size)
  return sizes
}

t.test('a crash before a page is durable leaves no tracker paged for the lost page', async (t) => {
  const dataDir = t.testdir()
  const { base, exited, report } = await startFaultyGateway(t, 'crash-before-paging-is-durable', dataDir)
  const created = await fetch(`${base}/api/v1/activeorders?dummy_tracker_address=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 9, locationName: 4 }),
  })
  t.equal(created.status, 200, 'created (durable: answered)')
  // Bound to the stand-in tracker address (v1's test aid), which the scheduler pages like any.
  const tracker = dummyTrackerAddress(9)
  const before = datafileSizes(dataDir)

  const paging = fetch(`${base}/api/v1/activeorders/9/page`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tracking: true }),
  })
  await t.rejects(paging, 'the page never answers: the process died')
  t.same(await exited, { code: null, signal: 'SIGKILL' })
  t.same((await report).paging, [], 'when the crash came, no tracker was being paged')

  const active = path.join(dataDir, 'activeorders.db')
  t.match(readFileSync(active, 'utf8').slice(before.get('activeorders.db')), /"paged":true/, 'the paged version had been appended')
  // The power cut: what was appended after the request came in never reached the disk.
  for (const name of readdirSync(dataDir).filter((name) => name.endsWith('.db'))) {
    const size = before.get(name)
    if (size === undefined) unlinkSync(path.join(dataDir, name))
    else truncateSync(path.join(dataDir, name), size)
  }

  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false } })
  const gateway = await startCheckedGateway({ config, log: memoryLogger('warn').log })
  t.teardown(() => gateway.stop())
  t.match(gateway.services.orders.get({ name: 9 }), { tracker, paged: false }, 'the page was lost with the power')
  await gateway.services.orders.idle()
  t.same(gateway.services.paging.paging(), [], 'and the restarted gateway pages nothing')
})
