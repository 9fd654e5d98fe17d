import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { controlSocketPath } from '../../runtime/control/control.ts'
import { runCli, startGatewayProcess } from '../helpers/process.ts'

t.test('gateway start serves GET /api/v2; gateway button opens the window; SIGTERM stops it cleanly', async (t) => {
  const dataDir = t.testdir({})
  const gateway = await startGatewayProcess(dataDir)
  t.teardown(() => gateway.stop('SIGKILL'))
  const response = await fetch(`${gateway.url}/api/v2`)
  t.equal(response.status, 200)
  t.match(await response.json(), { returnCode: 20 })

  const socket = statSync(controlSocketPath(dataDir))
  t.equal(socket.mode & 0o777, 0o600, 'control socket readable by its owner only')

  const before = await runCli(['button', 'status', '--data-dir', dataDir])
  t.match(before.stdout, /token window closed/)
  const press = await runCli(['button', '--data-dir', dataDir])
  t.equal(press.code, 0)
  t.match(press.stdout, /token window open for 1[12]\d s/)
  const after = await runCli(['button', 'status'], { GATEWAY_DATA_DIR: dataDir })
  t.match(after.stdout, /token window open/)

  t.match(gateway.output(), /"method":"GET","path":"\/api\/v2","status":200,"ms":/, 'request logged as JSON')
  t.equal(await gateway.stop('SIGTERM'), 0)
  t.match(gateway.output(), /gateway stopped/)
})

t.test('--port and --data-dir flags win over the environment', async (t) => {
  const dataDir = t.testdir({})
  const gateway = await startGatewayProcess('/nonexistent/should-not-be-used', {}, ['--port', '0', '--data-dir', dataDir])
  t.teardown(() => gateway.stop('SIGKILL'))
  t.ok(statSync(controlSocketPath(dataDir)))
  await gateway.stop()
})

t.test('a bad config stops start-up with a message naming the key', async (t) => {
  const dir = t.testdir({ 'bad.json': JSON.stringify({ port: 8000, radoi: {} }) })
  const result = await runCli(['start', '--config', path.join(dir, 'bad.json'), '--data-dir', dir])
  t.equal(result.code, 2)
  t.match(result.stderr, /unknown key "radoi"/)
})

t.test('button without a running gateway says so', async (t) => {
  const dir = t.testdir({})
  const result = await runCli(['button', '--data-dir', dir])
  t.equal(result.code, 1)
  t.match(result.stderr, /cannot reach the gateway.*is the gateway running/)
})

t.test('usage and unknown commands', async (t) => {
  t.match((await runCli(['--help'])).stdout, /usage: gateway/)
  const unknown = await runCli(['fly'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /unknown command "fly"/)
})

t.test('start --demo plays a lunch service; `gateway sim rush` takes --pace and --minutes values', async (t) => {
  const dataDir = t.testdir({})
  const gateway = await startGatewayProcess(dataDir, {}, ['--demo'])
  t.teardown(() => gateway.stop('SIGKILL'))
  const again = await runCli(['sim', 'rush', '--data-dir', dataDir])
  t.equal(again.code, 1)
  t.match(again.stderr, /a rush is already running/, 'the demo is playing')
  t.match((await runCli(['sim', 'rush', 'stop', '--data-dir', dataDir])).stdout, /^lunch rush stopped/)
  const paced = await runCli(['sim', 'rush', '--pace', '10', '--minutes', '1', '--data-dir', dataDir])
  t.match(paced.stdout, /^lunch rush running at pace 10;/)
  t.match(gateway.output(), /lunch rush running at pace 1;/, '--demo says what it plays')
})

t.test('the CLI finds a gateway started with another data dir through the environment, and says where it looked', async (t) => {
  // A registry of our own: gateways of other tests on this machine must not count.
  // Short paths: control sockets live in the data dirs (a Unix socket path has 107 bytes).
  const root = mkdtempSync(path.join(tmpdir(), 'gw-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const dir of ['tmp', 'elsewhere', 'data-a', 'data-b']) mkdirSync(path.join(root, dir))
  const env = { TMPDIR: path.join(root, 'tmp') }
  const elsewhere = path.join(root, 'elsewhere')
  const none = await runCli(['button'], env, { cwd: elsewhere })
  t.equal(none.code, 1)
  t.match(none.stderr, `looked in data dir ${path.join(elsewhere, 'data')} (from the default ./data) and for gateways registered in ${path.join(root, 'tmp')}`)

  const first = await startGatewayProcess(path.join(root, 'data-a'), env)
  t.teardown(() => first.stop('SIGKILL'))
  const found = await runCli(['button'], env, { cwd: elsewhere })
  t.equal(found.code, 0, found.stderr)
  t.match(found.stdout, /token window open/)
  t.match(found.stderr, `using the gateway on data dir ${path.join(root, 'data-a')} (PID ${first.child.pid}, port ${first.port})`)
  const status = await runCli(['status'], env, { cwd: elsewhere })
  t.match(status.stdout, `gateway running: PID ${first.child.pid}, port ${first.port}, data dir ${path.join(root, 'data-a')}`)
  t.match(status.stdout, /\nradio: simulated \(no Zigbee stick is used/, 'a fresh gateway says plainly that its radio is simulated')

  const explicit = await runCli(['button', '--data-dir', path.join(root, 'data-b')], env, { cwd: elsewhere })
  t.equal(explicit.code, 1, 'a data dir named explicitly is never swapped for another')
  t.match(explicit.stderr, `(looked in data dir ${path.join(root, 'data-b')} (from --data-dir))`)

  const second = await startGatewayProcess(path.join(root, 'data-b'), env)
  t.teardown(() => second.stop('SIGKILL'))
  const ambiguous = await runCli(['status'], env, { cwd: elsewhere })
  t.equal(ambiguous.code, 1, 'two candidates: none is picked')
  t.match(ambiguous.stderr, /no gateway runs on data dir .*elsewhere\/data\n\nother gateways of this user:\n {2}data dir .*data-a .*\n {2}data dir .*data-b/)
  t.match(ambiguous.stderr, /looked in data dir .* and for gateways registered in .*: data dir .*data-a/)
  await second.stop()
  await first.stop()
  t.same(readdirSync(path.join(root, 'tmp', `tracker-gateway-${process.getuid!()}`)), [], 'a stopped gateway leaves the registry')
})

t.test('gateway start names the process tracker-gateway and logs where the board is', async (t) => {
  const gateway = await startGatewayProcess(t.testdir({}))
  t.teardown(() => gateway.stop('SIGKILL'))
  t.equal(readFileSync(`/proc/${gateway.child.pid}/comm`, 'utf8').trim(), 'tracker-gateway')
  t.match(gateway.output(), new RegExp(`"msg":"board: http://localhost:${gateway.port}/"`))
  await gateway.stop()
})
