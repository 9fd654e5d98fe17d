import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import t from 'tap'
import { ConfigError, parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { lockDataDir, lockFileName, ownerFileName, prepareDataDir, readDataDirOwner } from '../../../runtime/wiring/data-dir-lock.ts'
import { startCheckedGateway } from '../../helpers/checked-gateway.ts'
import { cliPath, runCli, startGatewayProcess } from '../../helpers/process.ts'
import { spawnObeyingFileModes } from '../../helpers/without-root-override.ts'

const gatewayConfig = (dataDir: string, port = 0) => parseConfig({ port, host: '127.0.0.1', dataDir, mdns: { enabled: false } })

t.test('the lock: one holder at a time in a process, taken again after release, owner recorded', async (t) => {
  const dataDir = path.join(t.testdir(), 'new', 'data')
  const first = lockDataDir(dataDir)
  t.equal(statSync(dataDir).mode & 0o777, 0o700, 'a missing data dir is created 0700')
  t.equal(statSync(path.join(dataDir, lockFileName)).mode & 0o777, 0o600)
  t.throws(() => lockDataDir(dataDir), { name: 'ConfigError', message: new RegExp(`in use by the gateway with PID ${process.pid} \\(still starting\\)`) })
  first.setPort(8123, '127.0.0.1')
  t.match(readDataDirOwner(dataDir), { pid: process.pid, port: 8123, host: '127.0.0.1' })
  t.throws(() => lockDataDir(dataDir), { message: new RegExp(`PID ${process.pid} on port 8123`) })
  first.release()
  first.release()
  const second = lockDataDir(dataDir)
  second.release()
})

t.test('a data dir that is a file, under a file, or unreadable is named as such', async (t) => {
  const dir = t.testdir({ 'plain-file': 'x' })
  t.throws(() => prepareDataDir(path.join(dir, 'plain-file')), { name: 'ConfigError', message: /plain-file is a file, not a directory/ })
  t.throws(() => prepareDataDir(path.join(dir, 'plain-file', 'data')), { message: /a part of the path is a file/ })
  t.equal(readDataDirOwner(dir), undefined, 'no owner file: undefined')
})

t.test('two gateways on one data dir: the second refuses (exit 2, naming PID and port), the first is unaffected', async (t) => {
  const dataDir = t.testdir({})
  const first = await startGatewayProcess(dataDir)
  t.teardown(() => first.stop('SIGKILL'))
  const created = await fetch(`${first.url}/api/v1/activeorders?dummy_tracker_address=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 7 }),
  })
  t.equal(created.status, 200)
  const files = () =>
    Object.fromEntries(
      readdirSync(dataDir)
        .filter((name) => name.endsWith('.db'))
        .map((name) => [name, readFileSync(path.join(dataDir, name), 'utf8')]),
    )
  const before = files()
  const second = await runCli(['start', '--port', '0', '--data-dir', dataDir])
  // The first keeps appending; a second that had opened the files would have rewritten them.
  const after = files()
  t.ok(
    Object.entries(before).every(([name, text]) => after[name]?.startsWith(text)),
    'the datafiles only grew: the refused gateway rewrote none',
  )
  t.equal(second.code, 2)
  t.match(second.stderr, new RegExp(`data dir ${dataDir} is in use by the gateway with PID ${first.child.pid} on port ${first.port}`))
  t.notMatch(second.stdout, /gateway started/)
  t.equal((await fetch(`${first.url}/api/v1/activeorders/7`)).status, 200, 'the first still answers, its order there')
  const status = await runCli(['status', '--data-dir', dataDir])
  t.equal(status.code, 0)
  t.match(status.stdout, new RegExp(`gateway running: PID ${first.child.pid}, port ${first.port}, data dir ${dataDir}`))
  t.match(status.stdout, new RegExp(`board: http://localhost:${first.port}/`))
  t.match((await runCli(['button', '--data-dir', dataDir])).stdout, /token window open/, 'its control socket is still its own')
  t.equal(await first.stop('SIGTERM'), 0)
})

t.test('SIGKILL leaves nothing stuck: a restart takes the lock again', async (t) => {
  const dataDir = t.testdir({})
  const first = await startGatewayProcess(dataDir)
  t.equal(await first.stop('SIGKILL'), null)
  t.equal(readDataDirOwner(dataDir)?.pid, first.child.pid, 'the stale owner file is still there')
  const second = await startGatewayProcess(dataDir)
  t.teardown(() => second.stop('SIGKILL'))
  t.equal((await fetch(`${second.url}/api/v2`)).status, 200)
  t.equal(JSON.parse(readFileSync(path.join(dataDir, ownerFileName), 'utf8')).pid, second.child.pid)
  t.match((await runCli(['status', '--data-dir', dataDir])).stdout, new RegExp(`PID ${second.child.pid}`))
  await second.stop()
})

t.test('a port in use: a clear line, exit 2, and the data dir is free again', async (t) => {
  const blocker = net.createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => blocker.close())
  const port = (blocker.address() as net.AddressInfo).port
  const dataDir = t.testdir({})
  const result = await runCli(['start', '--port', String(port), '--data-dir', dataDir])
  t.equal(result.code, 2)
  t.match(result.stderr, new RegExp(`port ${port} on 0\\.0\\.0\\.0 is in use: another gateway on ${port}\\? \`gateway status\``))

  await t.rejects(startCheckedGateway({ config: gatewayConfig(dataDir, port), log: memoryLogger('warn').log }), ConfigError)
  const gateway = await startCheckedGateway({ config: gatewayConfig(dataDir), log: memoryLogger('warn').log })
  t.pass('the failed start released the lock')
  await gateway.stop()
})

t.test('in one process, a second startGateway on the same data dir is refused and changes nothing', async (t) => {
  const dataDir = t.testdir({})
  const gateway = await startCheckedGateway({ config: gatewayConfig(dataDir), log: memoryLogger('warn').log })
  t.teardown(() => gateway.stop())
  await t.rejects(startCheckedGateway({ config: gatewayConfig(dataDir), log: memoryLogger('warn').log }), { message: /is in use by the gateway/ })
  t.equal((await fetch(`http://127.0.0.1:${gateway.port}/api/v2`)).status, 200)
})

t.test('a data dir that is a file, or not writable, stops start-up with exit 2', async (t) => {
  const dir = t.testdir({ 'not-a-dir': 'x' })
  const asFile = await runCli(['start', '--port', '0', '--data-dir', path.join(dir, 'not-a-dir')])
  t.equal(asFile.code, 2)
  t.match(asFile.stderr, /data dir .*not-a-dir is a file, not a directory/)

  const readOnly = path.join(dir, 'read-only')
  mkdirSync(readOnly)
  chmodSync(readOnly, 0o555)
  // Root writes anywhere: it runs the check without that power (same uid, so a checkout in a
  // private directory stays reachable).
  const startOn = (dataDir: string) =>
    spawnObeyingFileModes(process.execPath, ['--disable-warning=ExperimentalWarning', cliPath, 'start', '--port', '0', '--data-dir', dataDir], {
      encoding: 'utf8',
      env: { ...process.env, NODE_COMPILE_CACHE: '' },
    })
  const result = startOn(readOnly)
  t.equal(result.status, 2, result.stderr)
  t.match(result.stderr, new RegExp(`data dir .*read-only is not writable \\(running as uid ${process.getuid?.()}\\)`))
  const missing = startOn(path.join(readOnly, 'data'))
  t.equal(missing.status, 2, missing.stderr)
  t.match(missing.stderr, /cannot create data dir .*read-only\/data: EACCES \(running as uid \d+\)/)
})
