// Clearing crosses two stores: the summary goes into history first, then the active order
// is removed. A real gateway process is killed (SIGKILL, at the crash point
// crash-after-history-insert, tests/runtime/fixtures/faulty-gateway.ts) between the two steps; after a restart
// the order is in history exactly once and no longer active.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { checkFetchAnswers } from '../helpers/documented-responses.ts'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import { startFaultyGateway } from '../helpers/faulty-gateway.ts'
import { startCheckedGateway } from '../helpers/checked-gateway.ts'

t.test('a crash between history insert and active removal loses nothing and duplicates nothing', async (t) => {
  checkFetchAnswers(t)
  const dataDir = t.testdir()
  const { base, exited } = await startFaultyGateway(t, 'crash-after-history-insert', dataDir)
  const created = await fetch(`${base}/api/v1/activeorders?dummy_tracker_address=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 9, locationName: 4 }),
  })
  t.equal(created.status, 200)
  const uuid = ((await created.json()) as { activeorder: { uuid: string } }).activeorder.uuid
  await t.rejects(fetch(`${base}/api/v1/activeorders/9`, { method: 'DELETE' }), 'the clear never answers: the process died')
  t.same(await exited, { code: null, signal: 'SIGKILL' })
  const live = readFileSync(path.join(dataDir, 'activeorders.db'), 'utf8')
  t.ok(live.includes(uuid) && !live.includes('"$$deleted":true'), 'the crash came before the removal: still in the active store')

  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false } })
  const gateway = await startCheckedGateway({ config, log: memoryLogger('warn').log })
  t.teardown(() => gateway.stop())
  t.same(gateway.services.orders.list(), [], 'not active any more')
  const row = gateway.services.history.db.prepare('SELECT COUNT(*) AS n FROM summaries WHERE uuid = ?').get(uuid) as { n: number }
  t.equal(row.n, 1, 'in history exactly once')
  t.match(gateway.services.history.get(uuid), { name: 9, locationName: 4 })
  t.equal(gateway.services.trackers.list().length, 0)
  t.equal((await fetch(`http://127.0.0.1:${gateway.port}/api/v1/activeorders/9`)).status, 404)
})
