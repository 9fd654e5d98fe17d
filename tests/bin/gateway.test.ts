// bin/gateway.js, what `npm start`, the systemd unit and the installed `gateway` command run,
// on a fresh copy of the project in a 0700 temporary directory: the first start builds the
// compiled tree and serves from it without loading a single .ts module (nor Node's
// TypeScript stripper); an edited source is rebuilt at the next start; the `gateway`
// commands run compiled too.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { stampName } from '../../bin/compiled-tree.js'
import { copyForBuild } from '../helpers/built-project.ts'
import { runCli, startGatewayProcess } from '../helpers/process.ts'

const copy = copyForBuild()
t.teardown(copy.remove)
const gatewayJs = path.join(copy.root, 'bin/gateway.js')
const probe = pathToFileURL(path.join(import.meta.dirname, 'fixtures/module-probe.mjs')).href
const stampTime = () => statSync(path.join(copy.root, 'build', stampName)).mtimeMs

async function startBuilt(t: Test) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-built-data-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const probeOut = path.join(dataDir, 'probe.json')
  const env = { NODE_OPTIONS: `--import=${probe}`, MODULE_PROBE_OUT: probeOut, GATEWAY_CONFIG: path.join(dataDir, 'none.json') }
  writeFileSync(env.GATEWAY_CONFIG, JSON.stringify({ host: '127.0.0.1', mdns: { enabled: false }, tls: { port: 0 } }))
  const gateway = await startGatewayProcess(path.join(dataDir, 'data'), env, [], { cli: gatewayJs })
  return { gateway, dataDir, probe: () => JSON.parse(readFileSync(probeOut, 'utf8')) as { typescript: string[]; amaro: boolean } }
}

t.test('the first start builds the tree and answers from it, loading no TypeScript', async (t) => {
  const { gateway, dataDir, probe } = await startBuilt(t)
  t.ok(stampTime() > 0, 'build/ made by the start')
  const index = await fetch(`${gateway.url}/api/v2`)
  t.equal(index.status, 200)
  t.match(await index.json(), { returnCode: Number })
  const unauthorised = await fetch(`${gateway.url}/api/v2/activeorders`)
  t.match(await unauthorised.json(), { returnCode: Number }, 'an API function answers in the envelope')
  const board = await fetch(`${gateway.url}/`)
  t.equal(board.status, 200)
  t.match(board.headers.get('content-type'), 'text/html', 'the board, from web/ through build/web')
  t.equal((await fetch(`${gateway.url}/api/openapi.json`)).status, 200)
  const status = await runCli(['status', '--data-dir', path.join(dataDir, 'data')], { NODE_OPTIONS: '', GATEWAY_CONFIG: path.join(dataDir, 'none.json') }, { cli: gatewayJs })
  t.equal(status.code, 0, status.stderr)
  t.match(status.stdout, `PID ${gateway.child.pid}`, 'a gateway command, compiled, reaches it')
  t.equal(await gateway.stop(), 0)
  const loaded = probe()
  t.same(loaded.typescript, [], 'no .ts module loaded')
  t.equal(loaded.amaro, false, "Node's TypeScript stripper never loaded")
})

t.test('an edited source is compiled again at the next start', async (t) => {
  const before = stampTime()
  const source = path.join(copy.root, 'functions/v2/index.get.ts')
  writeFileSync(source, readFileSync(source, 'utf8').replace("name: 'Tracker Gateway'", "name: 'Tracker Gateway (edited)'"))
  const { gateway, probe } = await startBuilt(t)
  t.ok(stampTime() > before, 'rebuilt')
  t.match(await (await fetch(`${gateway.url}/api/v2`)).json(), { name: 'Tracker Gateway (edited)' }, 'the edited code answers')
  t.equal(await gateway.stop(), 0)
  t.same(probe().typescript, [])
  const built = stampTime()
  const again = await startBuilt(t)
  t.equal(stampTime(), built, 'unchanged sources: no build')
  await again.gateway.stop()
})
