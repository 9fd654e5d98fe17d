// `gateway upgrade` on an installed box (issue 46): deploy/install.sh into a throwaway root,
// the service run by the stand-in service manager (tests/helpers/service-stand-in.ts), and
// signed release archives of this checkout at other versions. In order, on one box: a good
// release (health check passes, the old one kept), one that crashes at start after touching
// the data (rolled back by itself, the backup restored, the reason in `gateway status`),
// refused archives (bad signature, unsigned, damaged, older: nothing changes), and a rollback
// by hand.
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { installBox, installedVersion, keyPair, makeRelease, waitAnswers, startOrder, activeOrderNumbers } from '../helpers/upgrade-box.ts'

const fast = ['--health-timeout', '90', '--health-stable', '1']

t.test('upgrade, self-rollback, refusals, rollback by hand', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'upg-'))
  t.teardown(() => (process.env.KEEP_UPGRADE_DIR ? console.error(dir) : rm(dir, { recursive: true, force: true })))
  const trusted = keyPair(dir, 'chain')
  const stranger = keyPair(dir, 'stranger')
  const box = await installBox(dir, trusted.publicFile)
  t.teardown(() => box.close())
  const current = () => readlinkSync(path.join(box.root, 'opt/tracker-gateway'))
  const previous = () => readlinkSync(path.join(box.root, 'opt/tracker-gateway-releases/previous'))
  const version = async () => waitAnswers(box)
  t.equal(await version(), installedVersion)
  t.match(current(), new RegExp(`^tracker-gateway-releases/${installedVersion}-`), 'install.sh links the current version')
  const installedDir = path.basename(current())
  t.equal(await startOrder(box, 5, 9), 200)
  const orders = () => activeOrderNumbers(box)

  await t.test('a good release: health check passes, the old version kept', async (t) => {
    const archive = makeRelease(dir, '0.2.0', { privatePem: trusted.privatePem })
    const pid = box.service.mainPid
    const result = await box.gateway('upgrade', archive, ...fast)
    t.equal(result.status, 0, result.stderr)
    t.match(result.stdout, `upgraded ${installedVersion} -> 0.2.0`)
    t.equal(await version(), '0.2.0')
    t.not(box.service.mainPid, pid, 'restarted')
    t.match(current(), /^tracker-gateway-releases\/0\.2\.0-[0-9a-f]{12}$/)
    t.equal(previous(), installedDir, 'the old version kept for one rollback')
    t.same(await orders(), [5], 'data kept')
    t.match((await box.gateway('status')).stdout, /last upgrade from .* to 0\.2\.0: done/)
    t.notOk(existsSync(path.join(box.root, 'opt/tracker-gateway-releases/incoming')), 'nothing left in incoming/')
  })

  await t.test('a release that crashes at start rolls back by itself, data intact, reason in the status', async (t) => {
    const archive = makeRelease(dir, '0.3.0', { privatePem: trusted.privatePem, crashAtStart: true, dataFormat: 2 })
    const before = current()
    const result = await box.gateway('upgrade', archive, ...fast)
    t.equal(result.status, 1)
    t.match(result.stderr, /failed and was rolled back to 0\.2\.0: 0\.3\.0 failed its health check: restart loop/)
    t.equal(current(), before, 'current points at 0.2.0 again')
    t.equal(await version(), '0.2.0')
    t.same(await orders(), [5], 'orders intact')
    t.notOk(existsSync(path.join(box.dataDir, 'migrated-by-0.3.0')), "the backup replaced what 0.3.0 wrote (data format 2 is not 0.2.0's)")
    t.equal(previous(), installedDir, 'the rollback target of the last good upgrade is still kept')
    const status = await box.gateway('status')
    t.match(status.stdout, /last upgrade from 0\.2\.0 to 0\.3\.0 FAILED and was rolled back .*: 0\.3\.0 failed its health check: restart loop/)
    t.match(readFileSync(path.join(box.root, 'opt/tracker-gateway-releases/upgrade.log'), 'utf8'), /rolling back to 0\.2\.0/)
    // GET /api/v2/gateway (and the fleet status, from the same summary) says it too.
    const token = (await box.gateway('token', 'create', 'upgrade-test', '--scope', 'read')).stdout.split('\n')[0]!
    const gateway = (await (await box.api('/api/v2/gateway', { headers: { authorization: `Bearer ${token}` } })).json()) as {
      gatewayStatus: { upgrade: unknown }
    }
    t.match(gateway.gatewayStatus.upgrade, { kind: 'upgrade', state: 'rolled-back', from: '0.2.0', to: '0.3.0', reason: /restart loop/ })
  })

  await t.test('refused archives change nothing', async (t) => {
    const journal = path.join(box.root, 'opt/tracker-gateway-releases/upgrade.json')
    const state = () => [current(), previous(), readFileSync(journal, 'utf8'), box.service.mainPid]
    const before = state()
    const wrong = makeRelease(dir, '0.4.0', { privatePem: stranger.privatePem })
    const refusals: [string, RegExp][] = [[wrong, /not made by any trusted release key/]]
    const unsigned = makeRelease(dir, '0.5.0')
    refusals.push([unsigned, /unsigned: there is no .*\.sig beside it/])
    const damaged = makeRelease(dir, '0.6.0', { privatePem: trusted.privatePem })
    const bytes = readFileSync(damaged)
    bytes[bytes.length - 10] ^= 0xff
    writeFileSync(damaged, bytes)
    refusals.push([damaged, /damaged or not the one signed/])
    const older = makeRelease(dir, '0.1.5', { privatePem: trusted.privatePem })
    refusals.push([older, /version 0\.1\.5 is older than the running 0\.2\.0; --allow-downgrade/])
    for (const [archive, reason] of refusals) {
      const result = await box.gateway('upgrade', archive, ...fast)
      t.equal(result.status, 1, path.basename(archive))
      t.match(result.stderr, reason)
      t.same(state(), before, `${path.basename(archive)}: nothing changed`)
    }
    t.equal(await version(), '0.2.0')
  })

  await t.test('a release that does not build is abandoned before the switch', async (t) => {
    const archive = makeRelease(dir, '0.7.0', { privatePem: trusted.privatePem, brokenBuild: true })
    const before = [current(), previous(), box.service.mainPid]
    const result = await box.gateway('upgrade', archive, ...fast)
    t.equal(result.status, 1)
    t.match(result.stderr, /the new version does not build/)
    t.same([current(), previous(), box.service.mainPid], before, 'still 0.2.0, same process, same rollback target')
    t.match((await box.gateway('status')).stdout, /last upgrade from 0\.2\.0 to 0\.7\.0 was abandoned before the switch .*does not build/)
    t.notOk(
      readdirSync(path.join(box.root, 'opt/tracker-gateway-releases')).some((name) => name.startsWith('0.7.0')),
      'its directory removed',
    )
  })

  await t.test('rollback by hand', async (t) => {
    const result = await box.gateway('upgrade', '--rollback', ...fast)
    t.equal(result.status, 0, result.stderr)
    t.match(result.stdout, `rolled back 0.2.0 -> ${installedVersion}`)
    t.equal(await version(), installedVersion)
    t.equal(path.basename(current()), installedDir)
    t.same(await orders(), [5])
    const again = await box.gateway('upgrade', '--rollback', ...fast)
    t.equal(again.status, 1)
    t.match(again.stderr, /no previous version is kept/)
  })
})
