// deploy/install.sh against a throwaway root (--root, --test-mode): Node from a local
// "mirror" holding a tarball and its SHASUMS256.txt (the real node behind a wrapper), the app
// installed with a real `npm ci --omit=dev` (from npm's cache where it can), and the installed
// `gateway` command run against a gateway started from the installed files. System commands
// (apt-get, useradd, systemctl ...) are recorded in install-actions.log, not run.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { makeMirror, tarballName } from '../helpers/node-mirror.ts'
import { startGatewayProcess } from '../helpers/process.ts'

const script = path.resolve(import.meta.dirname, '../../deploy/install.sh')
function install(root: string, mirror: string, ...args: string[]) {
  return spawnSync('bash', [script, ...args, '--root', root, '--test-mode', '--node-dist', mirror], {
    encoding: 'utf8',
    env: { ...process.env, TRACKER_NODE_ARCH: 'x86_64', npm_config_prefer_offline: 'true' },
  })
}

t.test('install, upgrade keeps config and data, uninstall keeps them unless --purge', async (t) => {
  // Short paths: the installed gateway's control socket lives in the root's data dir.
  const dir = await mkdtemp(path.join(tmpdir(), 'inst-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const root = path.join(dir, 'root')
  const mirror = makeMirror(dir)

  const first = install(root, mirror, 'install')
  t.equal(first.status, 0, first.stderr)
  const node = path.join(root, 'usr/local/lib/tracker-gateway/node/bin/node')
  t.equal(execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(), process.version, 'Node from the mirror, behind the node symlink')
  t.ok(existsSync(path.join(root, 'opt/tracker-gateway/runtime/cli.ts')))
  t.match(
    readlinkSync(path.join(root, 'opt/tracker-gateway')),
    /^tracker-gateway-releases\/\d+\.\d+\.\d+-\d{8}T\d{6}Z$/,
    'the app is a version directory behind the current link',
  )
  const firstVersion = readlinkSync(path.join(root, 'opt/tracker-gateway'))
  t.ok(existsSync(path.join(root, 'opt/tracker-gateway/node_modules/ws')), 'production dependencies installed')
  const stamp = path.join(root, 'opt/tracker-gateway/build/.sources.json')
  t.ok(existsSync(path.join(root, 'opt/tracker-gateway/build/runtime/cli.js')), 'the compiled tree built at install')
  const builtAt = statSync(stamp).mtimeMs
  t.notOk(existsSync(path.join(root, 'opt/tracker-gateway/node_modules/tap')), 'no development dependencies')
  t.notOk(existsSync(path.join(root, 'opt/tracker-gateway/tests')), 'no tests')
  const config = path.join(root, 'etc/tracker-gateway/gateway.config.json')
  t.match(JSON.parse(readFileSync(config, 'utf8')), { port: 8000, dataDir: '/var/lib/tracker-gateway' })
  t.equal(statSync(path.join(root, 'var/lib/tracker-gateway')).mode & 0o777, 0o700)
  t.match(readFileSync(path.join(root, 'etc/systemd/system/tracker-gateway.service'), 'utf8'), 'ExecStart=/usr/local/lib/tracker-gateway/node/bin/node ')
  const actions = readFileSync(path.join(root, 'install-actions.log'), 'utf8')
  t.match(actions, /^apt-get install -y --no-install-recommends ca-certificates curl xz-utils$/m)
  t.match(actions, /^useradd --system --home-dir \/var\/lib\/tracker-gateway .*$/m)
  t.match(actions, /^usermod -aG dialout \S+$/m)
  t.match(actions, /^systemctl enable --now tracker-gateway$/m)
  t.match(actions, /^systemctl enable --now tracker-gateway-rollout\.path$/m, 'the unit that runs upgrades queued by a rollout from HQ')
  t.match(
    readFileSync(path.join(root, 'etc/systemd/system/tracker-gateway-rollout.path'), 'utf8'),
    /PathExists=\/var\/lib\/tracker-gateway\/rollout\/request\.json/,
  )

  // The installed `gateway` command finds the installed config by itself. The root's config
  // names /var/lib/tracker-gateway, which is not ours here: point a copy at the root's.
  const dataDir = path.join(root, 'var/lib/tracker-gateway')
  writeFileSync(config, JSON.stringify({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false } }))
  writeFileSync(path.join(dataDir, 'kept.txt'), 'data')
  const gatewayCommand = path.join(root, 'usr/local/bin/gateway')
  const { GATEWAY_CONFIG: _config, GATEWAY_DATA_DIR: _dataDir, ...commandEnv } = process.env
  const running = await startGatewayProcess(dataDir, { GATEWAY_CONFIG: config })
  t.teardown(() => running.stop('SIGKILL'))
  const status = spawnSync(gatewayCommand, ['status'], { encoding: 'utf8', cwd: dir, env: commandEnv })
  t.equal(status.status, 0, status.stderr)
  t.match(status.stdout, `gateway running: PID ${running.child.pid}, port ${running.port}, data dir ${dataDir}`)
  t.equal(statSync(stamp).mtimeMs, builtAt, 'the installed command runs the tree built at install, not a new build')
  await running.stop()

  // A version directory of the name this upgrade would take (its start's second, or one of
  // the next few) is never reused: the new version gets a name of its own.
  const version = path.basename(readlinkSync(path.join(root, 'opt/tracker-gateway'))).split('-')[0]
  const taken = Array.from({ length: 60 }, (_, i) => `${version}-${new Date(Date.now() + i * 1000).toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`)
  for (const name of taken) mkdirSync(path.join(root, 'opt/tracker-gateway-releases', name), { recursive: true })
  const upgraded = install(root, mirror, 'upgrade')
  t.equal(upgraded.status, 0, upgraded.stderr)
  t.match(upgraded.stdout, /keeping .*gateway\.config\.json/)
  t.match(JSON.parse(readFileSync(config, 'utf8')), { port: 0, dataDir }, 'config kept')
  t.equal(readFileSync(path.join(dataDir, 'kept.txt'), 'utf8'), 'data', 'data kept')
  t.match(readFileSync(path.join(root, 'install-actions.log'), 'utf8'), /systemctl stop tracker-gateway\nsystemctl start tracker-gateway\n$/)
  t.ok(existsSync(path.join(root, 'opt/tracker-gateway/runtime/cli.ts')))
  t.notOk(existsSync(path.join(root, 'opt/tracker-gateway.new')))
  // Upgraded beside: the version it replaced is kept for one `gateway upgrade --rollback`.
  const releases = path.join(root, 'opt/tracker-gateway-releases')
  t.equal(readlinkSync(path.join(releases, 'previous')), path.basename(firstVersion))
  t.not(readlinkSync(path.join(root, 'opt/tracker-gateway')), firstVersion)
  t.notOk(taken.includes(path.basename(readlinkSync(path.join(root, 'opt/tracker-gateway')))), 'a name of its own')
  t.ok(existsSync(path.join(root, 'opt/tracker-gateway/runtime/cli.ts')), 'the new version is a whole app, not moved into a taken directory')

  // The layout before versioned directories (a directory at /opt/tracker-gateway) becomes one.
  const linked = readlinkSync(path.join(root, 'opt/tracker-gateway'))
  rmSync(path.join(root, 'opt/tracker-gateway'))
  cpSync(path.join(root, 'opt', linked), path.join(root, 'opt/tracker-gateway'), { recursive: true, verbatimSymlinks: true })
  const fromOld = install(root, mirror, 'upgrade')
  t.equal(fromOld.status, 0, fromOld.stderr)
  t.ok(lstatSync(path.join(root, 'opt/tracker-gateway')).isSymbolicLink(), 'the old app dir replaced by the link')
  t.match(readlinkSync(path.join(releases, 'previous')), /-before-versions$/, 'and kept as the previous version')
  t.equal(readdirSync(releases, { withFileTypes: true }).filter((entry) => entry.isDirectory()).length, 2, 'current and previous only')

  const removed = install(root, mirror, 'uninstall')
  t.equal(removed.status, 0, removed.stderr)
  for (const gone of [
    'opt/tracker-gateway',
    'opt/tracker-gateway-releases',
    'usr/local/lib/tracker-gateway',
    'usr/local/bin/gateway',
    'etc/systemd/system/tracker-gateway.service',
    'etc/systemd/system/tracker-gateway-rollout.path',
    'etc/systemd/system/tracker-gateway-rollout.service',
  ]) {
    t.notOk(existsSync(path.join(root, gone)), `${gone} removed`)
  }
  t.ok(existsSync(config), 'config kept')
  t.equal(readFileSync(path.join(dataDir, 'kept.txt'), 'utf8'), 'data', 'data kept')
  const purged = install(root, mirror, 'uninstall', '--purge')
  t.equal(purged.status, 0, purged.stderr)
  t.notOk(existsSync(config))
  t.notOk(existsSync(dataDir))
  t.match(readFileSync(path.join(root, 'install-actions.log'), 'utf8'), /^userdel \S+$/m)
})

t.test('a tarball whose checksum does not match is not installed', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'inst-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const root = path.join(dir, 'root')
  const result = install(root, makeMirror(dir, true), 'install')
  t.equal(result.status, 1)
  t.match(result.stderr, `checksum mismatch for ${tarballName}.tar.xz: not installed`)
  t.notOk(existsSync(path.join(root, 'usr/local/lib/tracker-gateway/node')))
  t.notOk(existsSync(path.join(root, 'opt/tracker-gateway')))
})

t.test('upgrade without an install, unknown arguments, test mode without a root', async (t) => {
  const dir = t.testdir({})
  const upgrade = install(path.join(dir, 'root'), path.join(dir, 'nowhere'), 'upgrade')
  t.equal(upgrade.status, 1)
  t.match(upgrade.stderr, /nothing to upgrade .*: run install/)
  const unknown = spawnSync('bash', [script, '--colour'], { encoding: 'utf8' })
  t.equal(unknown.status, 2)
  t.match(unknown.stderr, /unknown argument --colour/)
  const noRoot = spawnSync('bash', [script, '--test-mode'], { encoding: 'utf8' })
  t.equal(noRoot.status, 1)
  t.match(noRoot.stderr, /--test-mode needs --root DIR/)
  t.match(spawnSync('bash', [script, '--help'], { encoding: 'utf8' }).stdout, /sudo deploy\/install.sh upgrade/)
  writeFileSync(path.join(dir, 'not-a-key.pub'), 'hello')
  const badKey = install(path.join(dir, 'keyroot'), path.join(dir, 'nowhere'), 'install', '--release-key', path.join(dir, 'not-a-key.pub'))
  t.equal(badKey.status, 1)
  t.match(badKey.stderr, /--release-key .*not-a-key\.pub is not a PEM public key .*nothing was changed/)
  t.notOk(existsSync(path.join(dir, 'keyroot/opt')), 'nothing installed')

  // A checkout inside the app dir (the old manual install) would be deleted with it.
  const root = path.join(dir, 'old')
  const inside = path.join(root, 'opt/tracker-gateway')
  mkdirSync(path.join(inside, 'deploy'), { recursive: true })
  writeFileSync(path.join(inside, 'package.json'), readFileSync(path.resolve(import.meta.dirname, '../../package.json')))
  writeFileSync(path.join(inside, 'deploy/install.sh'), readFileSync(script))
  const refused = spawnSync('bash', [path.join(inside, 'deploy/install.sh'), 'upgrade', '--root', root, '--test-mode'], { encoding: 'utf8' })
  t.equal(refused.status, 1)
  t.match(refused.stderr, /run this from a checkout or unpacked release outside .*opt\/tracker-gateway/)
  t.ok(existsSync(path.join(inside, 'package.json')), 'nothing deleted')
})
