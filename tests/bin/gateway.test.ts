// bin/gateway.js, what `npm start`, the systemd unit and the installed `gateway` command run,
// on a fresh copy of the project in a 0700 temporary directory: the first start builds the
// compiled tree and serves from its bundle (every module from build/bundle, none loaded one
// by one) without loading a single .ts module (nor Node's TypeScript stripper); an edited
// source is rebuilt at the next start; the `gateway` commands run compiled too.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { checkFetchAnswers } from '../helpers/documented-responses.ts'
import { stampName } from '../../bin/compiled-tree.js'
import { copyForBuild } from '../helpers/built-project.ts'
import { runCli, startGatewayProcess } from '../helpers/process.ts'
import { until } from '../helpers/until.ts'

const copy = copyForBuild()
t.teardown(copy.remove)
const gatewayJs = path.join(copy.root, 'bin/gateway.js')
const probe = pathToFileURL(path.join(import.meta.dirname, 'fixtures/module-probe.mjs')).href
const stampTime = () => statSync(path.join(copy.root, 'build', stampName)).mtimeMs

interface Probe {
  main: string
  files: string[]
  typescript: string[]
  amaro: boolean
}

async function startBuilt(t: Test, config: Record<string, unknown> = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-built-data-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const env = { NODE_OPTIONS: `--import=${probe}`, MODULE_PROBE_OUT: path.join(dataDir, 'probe'), GATEWAY_CONFIG: path.join(dataDir, 'none.json') }
  writeFileSync(env.GATEWAY_CONFIG, JSON.stringify({ host: '127.0.0.1', mdns: { enabled: false }, tls: { port: 0 }, ...config }))
  const gateway = await startGatewayProcess(path.join(dataDir, 'data'), env, [], { cli: gatewayJs })
  /** What each process started with the probe loaded (the gateway, its radio process). */
  const probes = () =>
    readdirSync(dataDir)
      .filter((name) => name.startsWith('probe-'))
      .map((name) => JSON.parse(readFileSync(path.join(dataDir, name), 'utf8')) as Probe)
  const gatewayProbe = () => probes().find((p) => p.main === gatewayJs)!
  return { gateway, dataDir, probe: gatewayProbe, probes }
}

t.test('the first start builds the tree and answers from it, loading no TypeScript', async (t) => {
  checkFetchAnswers(t)
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
  const status = await runCli(
    ['status', '--data-dir', path.join(dataDir, 'data')],
    { NODE_OPTIONS: '', GATEWAY_CONFIG: path.join(dataDir, 'none.json') },
    { cli: gatewayJs },
  )
  t.equal(status.code, 0, status.stderr)
  t.match(status.stdout, `PID ${gateway.child.pid}`, 'a gateway command, compiled, reaches it')
  // A backup is checked in a worker thread started from its module's file
  // (runtime/backup/verify-worker.ts), in the bundled gateway and in the bundled command.
  const cliEnv = { NODE_OPTIONS: '', GATEWAY_CONFIG: path.join(dataDir, 'none.json') }
  const backups = path.join(dataDir, 'backups')
  mkdirSync(backups)
  const backup = await runCli(['backup', '--data-dir', path.join(dataDir, 'data'), '--to', `${backups}/`], cliEnv, { cli: gatewayJs })
  t.equal(backup.code, 0, backup.stderr)
  const [file] = readdirSync(backups)
  const verify = await runCli(['backup', 'verify', path.join(backups, file!)], cliEnv, { cli: gatewayJs })
  t.equal(verify.code, 0, verify.stderr)
  t.match(verify.stdout, 'is whole', 'a backup written and checked by the bundled gateway and command')
  t.equal(await gateway.stop(), 0)
  const loaded = probe()
  t.same(loaded.typescript, [], 'no .ts module loaded')
  t.equal(loaded.amaro, false, "Node's TypeScript stripper never loaded")
  const bundle = path.join(copy.root, 'build/bundle/')
  t.ok(
    loaded.files.some((file) => file.startsWith(bundle)),
    'the gateway ran its bundle',
  )
  // The test runner's own hooks (NODE_OPTIONS) load modules too: only the project's count.
  const dependencies = Object.keys(
    (JSON.parse(readFileSync(path.join(copy.root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies,
  )
  const projects = (file: string) => file.startsWith(copy.root) || dependencies.some((name) => file.includes(`/node_modules/${name}/`))
  t.ok(
    loaded.files.some((file) => file.includes('/node_modules/@tapjs/')),
    "the runner's modules are seen (so would a package's be)",
  )
  const bin = path.join(copy.root, 'bin/')
  t.same(
    loaded.files.filter((file) => projects(file) && !file.startsWith(bundle) && !file.startsWith(bin)),
    [],
    'and no module outside it: neither the compiled tree nor a package',
  )
})

t.test('mDNS from the bundle: the gateway advertises itself (a CommonJS package imported when needed)', async (t) => {
  const { gateway } = await startBuilt(t, { host: '0.0.0.0', mdns: { enabled: true } })
  await until(() => gateway.output().includes('advertised over mDNS') || gateway.output().includes('mDNS advertisement unavailable'), 'mDNS advertising')
  t.notMatch(gateway.output(), 'mDNS advertisement unavailable')
  t.match(gateway.output(), '"msg":"advertised over mDNS"')
  t.equal(await gateway.stop(), 0)
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

t.test('a Zigbee radio: the compiled gateway forks the compiled radio process', async (t) => {
  const { gateway, probes } = await startBuilt(t, { radio: { kind: 'zigbee', adapter: 'zstack', serialPort: '/dev/null/no-stick' } })
  // The radio process is forked at start and fails on the missing stick; its supervisor
  // keeps the gateway up and answering.
  let radio: Probe | undefined
  for (let i = 0; i < 200 && !radio; i++) {
    radio = probes().find((p) => p.main.endsWith('zigbee-child.js'))
    if (!radio) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.equal((await fetch(`${gateway.url}/api/v2`)).status, 200)
  t.equal(await gateway.stop(), 0)
  t.ok(radio, 'the radio process ran build/lib/radio/zigbee-child.js')
  t.equal(radio?.main, path.join(copy.root, 'build/lib/radio/zigbee-child.js'))
  t.same(radio?.typescript, [], 'and loaded no .ts module')
  t.equal(radio?.amaro, false)
})
