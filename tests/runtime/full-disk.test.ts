// A full disk (tests/helpers/full-disk.ts: every write under the data dir fails with ENOSPC)
// at start-up and while running: the gateway starts and serves reads, refuses changes with
// 503 -37 changing nothing, and logs one warning per episode with the free space.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { checkFetchAnswers } from '../helpers/documented-responses.ts'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import { startCheckedGateway } from '../helpers/checked-gateway.ts'
import { fullDisk } from '../helpers/full-disk.ts'

const warning = 'storage cannot take writes (disk full or read-only): changes are refused with -37 until it can'

t.test('start-up on a full disk serves reads and refuses writes with -37; one warning per episode', async (t) => {
  checkFetchAnswers(t)
  const dataDir = t.testdir()
  const config = parseConfig({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    mdns: { enabled: false },
    security: { openRoutes: ['POST /api/v2/activeorders', 'GET /api/v2/activeorders'] },
  })
  const first = await startCheckedGateway({ config, log: memoryLogger('warn').log })
  await first.services.orders.create({ name: 3, orderType: 'TO_GO', requireTracker: false })
  await first.stop()

  const disk = fullDisk(dataDir)
  t.teardown(() => disk.restore())
  const memory = memoryLogger('info')
  const gateway = await startCheckedGateway({ config, log: memory.log })
  t.teardown(() => gateway.stop())
  const base = `http://127.0.0.1:${gateway.port}`
  const warnings = () => memory.lines().filter((line) => line.msg === warning)
  t.ok(disk.refused > 0, 'the start-up tried to write and was refused')

  const list = await fetch(`${base}/api/v1/activeorders`)
  t.equal(list.status, 200, 'reads are served')
  t.match(await list.json(), { count: '1', items: [{ name: '3' }] })
  const create = (name: number) =>
    fetch(`${base}/api/v2/activeorders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, orderType: 'TO_GO' }),
    })
  for (let i = 0; i < 3; i++) {
    const refused = await create(10 + i)
    t.equal(refused.status, 503)
    t.match(await refused.json(), { returnCode: -37 })
  }
  t.equal(((await (await fetch(`${base}/api/v2/activeorders`)).json()) as { count: number }).count, 1, 'nothing changed')
  t.equal(warnings().length, 1, 'one warning for the whole episode')
  t.match(warnings()[0], { level: 40, code: 'ENOSPC', freeBytes: Number, dataDir })

  // Space is freed: writes work, the episode ends; the disk fills again while running: a new warning.
  disk.free()
  t.equal((await create(20)).status, 200, 'a write after space was freed')
  t.ok(memory.lines().some((line) => line.msg === 'storage takes writes again'))
  disk.fill()
  t.equal((await create(21)).status, 503)
  t.equal((await create(22)).status, 503)
  t.equal(warnings().length, 2, 'the second episode, while running, is warned about once')
  disk.free()
})

/** A 4 MiB tmpfs at a fresh mount point, or undefined where mounting is not allowed (not root, no CAP_SYS_ADMIN). */
function smallFileSystem(): string | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir], { stdio: 'ignore' })
    return dir
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return undefined
  }
}

const mountPoint = smallFileSystem()

t.test(
  'a really full file system (tmpfs, root only): SQLite history included, the gateway starts and reads',
  { skip: mountPoint ? false : 'mounting a tmpfs is not allowed here' },
  async (t) => {
    checkFetchAnswers(t)
    const dir = mountPoint!
    let gateway: Awaited<ReturnType<typeof startCheckedGateway>> | undefined
    t.teardown(async () => {
      await gateway?.stop()
      execFileSync('umount', [dir])
      rmSync(dir, { recursive: true, force: true })
    })
    const dataDir = path.join(dir, 'data')
    const config = parseConfig({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      mdns: { enabled: false },
      security: { openRoutes: ['POST /api/v2/activeorders', 'GET /api/v2/orders', 'DELETE /api/v2/activeorders/:id'] },
    })
    const first = await startCheckedGateway({ config, log: memoryLogger('warn').log })
    await first.services.orders.create({ name: 3, orderType: 'TO_GO', requireTracker: false })
    await first.services.orders.create({ name: 4, orderType: 'TO_GO', requireTracker: false })
    await first.services.orders.clear({ name: 4 })
    await first.stop()
    t.throws(() => writeFileSync(path.join(dir, 'filler'), Buffer.alloc(8 * 1024 * 1024)), { code: 'ENOSPC' }, 'the file system is full')

    const memory = memoryLogger('info')
    gateway = await startCheckedGateway({ config, log: memory.log })
    const base = `http://127.0.0.1:${gateway.port}`
    t.equal((await fetch(`${base}/api/v1/activeorders`)).status, 200, 'active orders are read')
    const history = await fetch(`${base}/api/v2/orders`)
    t.equal(history.status, 200, 'history is read')
    t.match(await history.json(), { count: 1 })
    const created = await fetch(`${base}/api/v2/activeorders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":5,"orderType":"TO_GO"}',
    })
    t.equal(created.status, 503)
    t.match(await created.json(), { returnCode: -37 })
    const cleared = await fetch(`${base}/api/v2/activeorders/3`, { method: 'DELETE' })
    t.equal(cleared.status, 503, 'a clear (history insert, then the active store) is refused too')
    t.equal(memory.lines().filter((line) => line.msg === warning).length, 1)
  },
)
