// runtime/upgrade/upgrade.ts in this process, on a small installed layout: versions that are
// a package.json, a lockfile, node_modules and a build script; a `gateway` command that
// writes a backup file and records a restore; a service manager and a gateway stand-in that
// answer for whichever version `current` names (a version marked crash never answers and
// restarts). The box-level test is tests/deploy/upgrade.test.ts; this one walks the steps
// and the start-up check at each step quickly.
import { createHash, generateKeyPairSync } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import t, { type Test } from 'tap'
import { signRelease } from '../../../lib/release/signature.ts'
import { readJournal, writeJournal, type UpgradeJournal, type UpgradeStep } from '../../../runtime/upgrade/journal.ts'
import { installLayout } from '../../../runtime/upgrade/layout.ts'
import type { ServiceManager } from '../../../runtime/upgrade/service-manager.ts'
import { recover, rollbackByHand, upgrade, type UpgradeContext } from '../../../runtime/upgrade/upgrade.ts'
import { lastUpgrade } from '../../../runtime/upgrade/summary.ts'

function writeVersion(dir: string, version: string, extra: Record<string, unknown> = {}): void {
  mkdirSync(path.join(dir, 'runtime/build'), { recursive: true })
  mkdirSync(path.join(dir, 'node_modules/dep'), { recursive: true })
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ version, ...extra }))
  writeFileSync(path.join(dir, 'package-lock.json'), '{"lock":1}')
  writeFileSync(path.join(dir, 'node_modules/dep/index.js'), '')
  writeFileSync(path.join(dir, 'runtime/build/build.ts'), "import { writeFileSync } from 'node:fs'\nwriteFileSync('built', '')\n")
}

async function box(t: Test) {
  const root = t.testdir({})
  const layout = installLayout(root)
  writeVersion(path.join(layout.releases, '1.0.0-a'), '1.0.0')
  symlinkSync('tracker-gateway-releases/1.0.0-a', layout.current)
  mkdirSync(path.dirname(layout.node), { recursive: true })
  symlinkSync(process.execPath, layout.node)
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  mkdirSync(layout.keys, { recursive: true })
  writeFileSync(path.join(layout.keys, 'chain.pub'), publicKey.export({ type: 'spki', format: 'pem' }))
  const calls = path.join(root, 'calls')
  mkdirSync(path.dirname(layout.command), { recursive: true })
  writeFileSync(layout.command, `#!/bin/sh\necho "$*" >>'${calls}'\nif [ "$1" = backup ]; then echo backup >"$3"; fi\n`, { mode: 0o755 })
  const dataDir = path.join(root, 'data')
  mkdirSync(dataDir)
  const running = () => JSON.parse(readFileSync(path.join(layout.current, 'package.json'), 'utf8')) as { version: string; crash?: boolean }
  const server = createServer((_request, response) => {
    if (running().crash) return void response.destroy()
    response.end(JSON.stringify({ capabilities: { appBundleVersion: running().version } }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  writeFileSync(
    path.join(dataDir, 'gateway.owner.json'),
    JSON.stringify({ pid: process.pid, port: (server.address() as AddressInfo).port, host: '127.0.0.1', startedAt: 0 }),
  )
  let restarts = 0
  const service: ServiceManager = {
    start: async () => {},
    stop: async () => {},
    restart: async () => {},
    state: async () => ({ active: 'active', mainPid: process.pid, restarts: running().crash ? ++restarts : restarts }),
  }
  const ctx: UpgradeContext = { layout, dataDir, service, say: () => {}, healthLimitMs: 20_000, stableMs: 10 }
  const release = (version: string, extra: Record<string, unknown> = {}) => {
    const tree = path.join(root, `tree-${version}`)
    writeVersion(path.join(tree, `tracker-gateway-${version}`), version, extra)
    const archive = path.join(root, `tracker-gateway-${version}.tar.gz`)
    execFileSync('tar', ['-czf', archive, '-C', tree, `tracker-gateway-${version}`])
    const sha256 = createHash('sha256').update(readFileSync(archive)).digest('hex')
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
    writeFileSync(`${archive}.sig`, JSON.stringify(signRelease(pem, path.basename(archive), version, sha256)))
    return archive
  }
  const calls_ = () => (existsSync(calls) ? readFileSync(calls, 'utf8') : '')
  return { root, layout, ctx, release, calls: calls_, current: () => path.basename(readlinkSync(layout.current)) }
}

t.test('upgrade, a self-rollback with the backup restored, a rollback by hand', async (t) => {
  const b = await box(t)
  t.match(await upgrade(b.ctx, { source: b.release('1.1.0') }), 'upgraded 1.0.0 -> 1.1.0; 1.0.0 kept for gateway upgrade --rollback')
  t.match(b.current(), /^1\.1\.0-[0-9a-f]{12}$/)
  t.equal(readlinkSync(b.layout.previous), '1.0.0-a')
  t.ok(existsSync(path.join(b.layout.current, 'node_modules/dep/index.js')), 'dependencies linked from the running version')
  t.ok(existsSync(path.join(b.layout.current, 'built')), 'built')
  t.match(b.calls(), /^backup --to .*pre-upgrade-1\.0\.0-/)
  t.match(lastUpgrade(b.layout.journal), { kind: 'upgrade', state: 'committed', from: '1.0.0', to: '1.1.0', reason: null })
  const good = b.current()

  await t.rejects(upgrade(b.ctx, { source: b.release('1.2.0', { crash: true, trackerGateway: { dataFormat: 2 } }) }), {
    name: 'UpgradeFailedError',
    message: /upgrade to 1\.2\.0 failed and was rolled back to 1\.1\.0: 1\.2\.0 failed its health check: restart loop/,
  })
  t.equal(b.current(), good)
  t.equal(readlinkSync(b.layout.previous), '1.0.0-a', 'the rollback target kept')
  t.match(b.calls(), /\nrestore .*pre-upgrade-1\.1\.0-\S+ --replace\n$/, 'data format 2 differs: the backup restored')
  t.match(lastUpgrade(b.layout.journal), { state: 'rolled-back', reason: /restart loop/ })

  t.equal(await rollbackByHand(b.ctx), 'rolled back 1.1.0 -> 1.0.0')
  t.equal(b.current(), '1.0.0-a')
  t.notOk(existsSync(b.layout.previous), 'one rollback only')
  await t.rejects(rollbackByHand(b.ctx), /no previous version is kept/)
  await t.rejects(upgrade(b.ctx, { source: b.release('0.9.0') }), /older than the running 1\.0\.0/)
  t.match(await upgrade(b.ctx, { source: path.join(b.root, 'tracker-gateway-0.9.0.tar.gz'), allowDowngrade: true }), 'upgraded 1.0.0 -> 0.9.0')
})

t.test('the start-up check at each step: before the switch abandoned, after it rolled back', async (t) => {
  const steps: [UpgradeStep, string][] = [
    ['preparing', 'abandoned'],
    ['backed-up', 'abandoned'],
    ['prepared', 'abandoned'],
    ['switching', 'abandoned'],
    ['switched', 'rolled-back'],
    ['restarted', 'rolled-back'],
    ['rolling-back', 'rolled-back'],
    ['committed', 'committed'],
  ]
  for (const [at, outcome] of steps) {
    const b = await box(t)
    writeVersion(path.join(b.layout.releases, '2.0.0-b'), '2.0.0', { trackerGateway: { dataFormat: 2 } })
    if (!['preparing', 'backed-up', 'prepared'].includes(at)) {
      symlinkSync('tracker-gateway-releases/2.0.0-b', `${b.layout.current}.new`)
      execFileSync('mv', ['-T', `${b.layout.current}.new`, b.layout.current])
    }
    const journal: UpgradeJournal = {
      step: at,
      kind: 'upgrade',
      from: { version: '1.0.0', dir: '1.0.0-a', dataFormat: 1 },
      to: { version: '2.0.0', dir: '2.0.0-b', dataFormat: 2 },
      previous: null,
      backup: at === 'preparing' ? null : path.join(b.ctx.dataDir, 'pre-upgrade.tar'),
      startedAt: '',
      updatedAt: '',
      reason: null,
    }
    writeJournal(b.layout.journal, journal)
    const said = await recover(b.ctx)
    t.equal(readJournal(b.layout.journal)?.step, outcome, `${at}: ${outcome}`)
    if (outcome === 'committed') {
      t.equal(said, '')
      continue
    }
    t.equal(b.current(), '1.0.0-a', `${at}: back on the version it came from`)
    t.match(said, outcome === 'abandoned' ? `abandoned the upgrade to 2.0.0 (interrupted at ${at})` : `rolled back the upgrade to 2.0.0 (interrupted at ${at})`)
    t.equal(existsSync(path.join(b.layout.releases, '2.0.0-b')), outcome !== 'abandoned', `${at}: the new version's directory removed only when abandoned`)
    t.equal(b.calls().includes('restore'), outcome === 'rolled-back', `${at}: the backup restored only after the new version may have run`)
    t.equal(await recover(b.ctx), '', `${at}: nothing left to do`)
  }
})
