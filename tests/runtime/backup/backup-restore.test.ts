// A backup taken through the control socket while orders are written concurrently, restored
// into a new data dir: every collection, history row and radio file is the box at the
// backup's moment, and the restored gateway's first change is numbered above every seq the
// old one sent, before and after the backup.
import t from 'tap'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { parseConfig } from '../../../lib/config.ts'
import { readDatafile } from '../../../lib/store/datafile-load.ts'
import { verifyBackup } from '../../../lib/backup/verify.ts'
import { sendControl } from '../../../runtime/control/control.ts'
import { restoreBackup } from '../../../runtime/backup/restore.ts'
import type { RunningGateway } from '../../../runtime/wiring/main.ts'
import { startCheckedGateway } from '../../helpers/checked-gateway.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { startReceiver } from '../../helpers/webhooks.ts'
import { until } from '../../helpers/until.ts'

async function start(dataDir: string): Promise<RunningGateway> {
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false }, webhooks: { allowLoopback: true, retrySchedule: [50] } })
  return startCheckedGateway({ config, log: memoryLogger('warn').log })
}

async function http(gw: RunningGateway, route: string, body?: unknown, token?: string) {
  const [method, target] = route.split(' ')
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const response = await fetch(`http://127.0.0.1:${gw.port}${target}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as any }
}

/** Every document of every open collection, read independently of Store.snapshot. */
async function collectionsOf(gw: RunningGateway, names: string[]): Promise<Map<string, object[]>> {
  const result = new Map<string, object[]>()
  for (const name of names) result.set(name, byId(await (await gw.services.store.collection(name)).find({})))
  return result
}

const byId = (docs: object[]) => [...docs].sort((a, b) => ((a as { _id: string })._id < (b as { _id: string })._id ? -1 : 1))
const historyRows = (db: DatabaseSync) => db.prepare('SELECT * FROM summaries ORDER BY seq').all()

t.test('a backup under load restores the box as it was at the backup, and seq only goes up', async (t) => {
  const root = t.testdir()
  const oldDir = path.join(root, 'old')
  const newDir = path.join(root, 'new')
  // Stand-ins for the radio's files: the simulated radio has none, a Zigbee one keeps them here.
  mkdirSync(path.join(oldDir, 'zigbee'), { recursive: true })
  const radioFiles = {
    'network.json': '{"networkKey":"00112233445566778899aabbccddeeff"}\n',
    'database.db': '{"id":1,"ieeeAddr":"0x00124b0000000001"}\n',
    'coordinator_backup.json': '{"metadata":{"format":"zigpy/open-coordinator-backup"}}\n',
  }
  for (const [name, text] of Object.entries(radioFiles)) writeFileSync(path.join(oldDir, 'zigbee', name), text)

  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  const old = await start(oldDir)
  let restored: RunningGateway | undefined
  t.teardown(async () => {
    await old.stop().catch(() => {})
    await restored?.stop().catch(() => {})
  })
  old.services.button.press()
  const token = (await http(old, 'GET /api/v2/accesstoken/generate?name=pos')).body.token.token as string
  t.equal((await http(old, 'POST /api/v2/register', { http_client: receiver.url }, token)).status, 200)
  const sent: number[] = []
  old.services.changes.on('recorded', (change) => sent.push(change.seq))
  // A history to back up, and some of it cleared while the backup runs.
  for (let name = 1; name <= 40; name++) await http(old, 'POST /api/v2/activeorders', { name, orderType: 'TO_GO' }, token)
  for (let name = 1; name <= 25; name++) await http(old, `DELETE /api/v2/activeorders/${name}`, undefined, token)

  // The moment of the backup, seen independently: captured inside the same pause.
  let truth: { collections: Map<string, object[]>; history: unknown[]; seq: number } | undefined
  const exclusive = old.services.orders.exclusive.bind(old.services.orders)
  old.services.orders.exclusive = (task) =>
    exclusive(async () => {
      const names = [...(await old.services.store.snapshot()).keys()]
      truth = { collections: await collectionsOf(old, names), history: historyRows(old.services.history.db), seq: old.services.changes.lastSeq }
      return task()
    })

  let writing = true
  let next = 100
  const load = (async () => {
    while (writing) {
      const name = next++
      await http(old, 'POST /api/v2/activeorders', { name, orderType: 'TO_GO' }, token)
      if (name % 2 === 0) await http(old, `DELETE /api/v2/activeorders/${name}`, undefined, token)
    }
  })()
  await until(() => next > 110, 'load running')
  const file = path.join(root, 'box.tar')
  const done = (await sendControl(oldDir, 'backup.run', { to: file }, 120_000)) as { file: string; manifest: { seq: number } }
  await until(() => next > 130, 'load continuing after the backup')
  writing = false
  await load
  t.equal(done.file, file)
  t.ok(truth, 'the moment was captured')
  t.equal(done.manifest.seq, truth!.seq, 'the manifest names the seq of the moment')
  t.ok(
    sent.some((seq) => seq > truth!.seq),
    'changes were recorded after the backup',
  )
  t.ok(
    sent.some((seq) => seq <= truth!.seq),
    'and before',
  )
  t.equal(readFileSync(file).length > 0 && (await import('node:fs')).statSync(file).mode & 0o777, 0o600, 'the file is 0600')
  await verifyBackup(file)
  await until(() => receiver.posts().length > 0, 'webhooks delivered')
  const lastSentBefore = Math.max(...sent)
  await old.stop()

  const result = await restoreBackup({ file, dataDir: newDir })
  t.ok(result.seqFloor >= lastSentBefore, 'the floor is above every seq sent')

  // Every collection as it was at the moment, but the outboxes (emptied) and the change log's numbers.
  for (const [name, docs] of truth!.collections) {
    const restoredDocs = byId((await readDatafile(path.join(newDir, `${name}.db`))).docs)
    if (name === 'webhook-outbox' || name === 'fleet-outbox') t.same(restoredDocs, [], `${name} starts empty`)
    else if (name === 'seq') t.same(restoredDocs.map((d) => (d as { key: string }).key).sort(), ['announced', 'seq'])
    else t.same(restoredDocs, docs, `collection ${name}`)
  }
  t.ok(truth!.collections.get('tokens')!.length > 0 && truth!.collections.get('webhooks')!.length > 0 && truth!.collections.get('webhook-keys')!.length > 0)
  const restoredHistory = new DatabaseSync(path.join(newDir, 'history.sqlite'))
  t.same(historyRows(restoredHistory), truth!.history, 'every history row, and none cleared after the moment')
  restoredHistory.close()
  for (const [name, text] of Object.entries(radioFiles)) t.equal(readFileSync(path.join(newDir, 'zigbee', name), 'utf8'), text, `radio file ${name}`)

  // The restored box serves: the old token works, its orders are there, its seq is above everything.
  restored = await start(newDir)
  const expectedActive = (truth!.collections.get('activeorders') as { name: number; change: { type: string } }[])
    .filter((o) => o.change.type !== 'ORDER_CLEARED')
    .map((o) => o.name)
    .sort((a, b) => a - b)
  t.same(
    restored.services.orders
      .list()
      .map((o) => o.name)
      .sort((a, b) => a - b),
    expectedActive,
    'every active order of the moment',
  )
  receiver.requests.length = 0
  const created = await http(restored, 'POST /api/v2/activeorders', { name: 999, orderType: 'TO_GO' }, token)
  t.equal(created.status, 200, 'the old token is accepted')
  await until(() => receiver.posts().length > 0, 'the new change delivered')
  const firstSeq = Math.min(...receiver.posts().map((p) => p.seq))
  t.ok(firstSeq > lastSentBefore, `first seq after the restore (${firstSeq}) is above every seq sent before and after the backup (${lastSentBefore})`)
  t.same(
    receiver.posts().map((p) => p.name),
    [999],
    'nothing from the old outbox is sent again',
  )
})
