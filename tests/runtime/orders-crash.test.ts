// Clearing crosses two stores: the summary goes into history first, then the active order
// is removed. A real gateway process is killed (SIGKILL, at the crash point
// crash-after-history-insert, tests/runtime/fixtures/faulty-gateway.ts) between the two steps; after a restart
// the order is in history exactly once and no longer active.
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import t from 'tap'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import { startGateway } from '../../runtime/wiring/main.ts'

const root = path.resolve(import.meta.dirname, '../..')

t.test('a crash between history insert and active removal loses nothing and duplicates nothing', async (t) => {
  const dataDir = t.testdir()
  const configFile = path.join(dataDir, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port: 0, mdns: { enabled: false } }))
  const faulty = path.join(root, 'tests/runtime/fixtures/faulty-gateway.ts')
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', faulty, 'crash-after-history-insert', '--config', configFile, '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number }
        if (entry.msg === 'gateway started' && typeof entry.port === 'number') resolve(entry.port)
      } catch {}
    })
    void exited.then(() => reject(new Error('gateway exited before it started')))
  })
  const base = `http://127.0.0.1:${port}`
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
  const gateway = await startGateway({ config, log: memoryLogger('warn').log })
  t.teardown(() => gateway.stop())
  t.same(gateway.services.orders.list(), [], 'not active any more')
  const row = gateway.services.history.db.prepare('SELECT COUNT(*) AS n FROM summaries WHERE uuid = ?').get(uuid) as { n: number }
  t.equal(row.n, 1, 'in history exactly once')
  t.match(gateway.services.history.get(uuid), { name: 9, locationName: 4 })
  t.equal(gateway.services.trackers.list().length, 0)
  t.equal((await fetch(`http://127.0.0.1:${gateway.port}/api/v1/activeorders/9`)).status, 404)
})
