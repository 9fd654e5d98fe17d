// `gateway backup`, `gateway backup verify` and `gateway restore` as a person runs them,
// against a real gateway process; and a gateway killed (SIGKILL) in the middle of a backup
// of a large history leaves the older backup whole and no file that looks complete.
import t from 'tap'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { HistoryStore } from '../../../lib/history/store.ts'
import { verifyBackup } from '../../../lib/backup/verify.ts'
import { runCli, startGatewayProcess } from '../../helpers/process.ts'
import { describeBackupStatus } from '../../../runtime/cli/backup-commands.ts'
import { until } from '../../helpers/until.ts'

t.test('backup, verify and restore from the command line', async (t) => {
  const root = t.testdir({ 'pass.txt': 'a long passphrase\n', 'wrong.txt': 'not it\n' })
  const dataDir = path.join(root, 'data')
  const gateway = await startGatewayProcess(dataDir)
  t.teardown(() => gateway.stop('SIGKILL'))
  const env = { GATEWAY_DATA_DIR: dataDir }
  const plain = path.join(root, 'plain.tar')
  const made = await runCli(['backup', '--to', plain], env)
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, /backup written: .*plain\.tar \(\d+ bytes\)\ntaken .* at seq 0\n0 active orders, 0 history rows/)
  const status = await runCli(['status'], env)
  t.match(status.stdout, /backups: none scheduled[^]*\nlast backup: \d{4}-.*plain\.tar \(\d+ bytes\)/)
  const verified = await runCli(['backup', 'verify', plain])
  t.equal(verified.code, 0, verified.stderr)
  t.match(verified.stdout, /is whole: taken/)

  const sealed = path.join(root, 'sealed.tar.enc')
  t.equal((await runCli(['backup', '--to', sealed, '--passphrase-file', path.join(root, 'pass.txt')], env)).code, 0)
  const wrong = await runCli(['backup', 'verify', sealed, '--passphrase-file', path.join(root, 'wrong.txt')])
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /gateway backup: wrong passphrase for this backup/)
  t.match((await runCli(['backup', 'verify', sealed])).stderr, /encrypted: give its passphrase/)
  t.match((await runCli(['backup', 'nonsense'])).stderr, /usage: gateway backup/)

  const refused = await runCli(['restore', plain, '--replace'], env)
  t.equal(refused.code, 2, 'a running gateway is never restored over')
  t.match(refused.stderr, /in use by the gateway/)
  t.match((await runCli(['restore'], env)).stderr, /usage: gateway restore FILE/)

  const restored = await runCli(['restore', sealed, '--data-dir', path.join(root, 'new'), '--passphrase-file', path.join(root, 'pass.txt')])
  t.equal(restored.code, 0, restored.stderr)
  t.match(restored.stdout, /restored .*sealed\.tar\.enc into .*new\n[^]*change numbers \(seq\) continue above \d{16}[^]*no order was active/)
})

t.test('SIGKILL during a backup leaves the older backup good and nothing that looks whole', async (t) => {
  const root = t.testdir()
  const dataDir = path.join(root, 'data')
  const target = path.join(root, 'backups')
  mkdirSync(dataDir)
  mkdirSync(target)
  // A history large enough that the backup takes a moment (the kill may still land after
  // it: the checks hold either way, and the comment says where it landed).
  const history = new HistoryStore(path.join(dataDir, 'history.sqlite'))
  for (let batch = 0; batch < 30; batch++) {
    history.insertMany(Array.from({ length: 10_000 }, (_, i) => ({ uuid: `u-${batch}-${i}`, name: i % 999 + 1, orderType: 'TO_GO' as const, locationName: i % 40, orderStarted: 1_700_000_000_000 + i, orderLocated: null, orderCleared: 1_700_000_100_000 + i })))
  }
  history.close()
  let gateway = await startGatewayProcess(dataDir)
  t.teardown(() => gateway.stop('SIGKILL'))
  const env = { GATEWAY_DATA_DIR: dataDir }
  const older = path.join(target, 'older.tar')
  t.equal((await runCli(['backup', '--to', older], env)).code, 0)

  writeFileSync(path.join(root, 'p'), 'pass\n')
  const whole = () => readdirSync(target).filter((n) => !n.includes('.partial'))
  for (let round = 0; round < 2; round++) {
    const before = whole().length
    const leftOver = new Set(readdirSync(target))
    const running = runCli(['backup', '--to', target, '--passphrase-file', path.join(root, 'p')], env)
    // Round 0 is killed while the history is copied, round 1 once the archive is being written.
    const underWay = (n: string) => !leftOver.has(n) && (round === 0 ? n.includes('.partial') : n.endsWith('.tar.enc.partial'))
    await until(() => readdirSync(target).some(underWay) || whole().length > before, 'the backup under way', 60_000)
    await gateway.stop('SIGKILL')
    const answer = await running
    const finished = whole().length > before
    t.comment(finished ? 'the kill landed after the rename' : `killed mid-write: ${readdirSync(target).join(', ')}`)
    if (!finished) t.match(answer.stderr, /closed the connection before answering|cannot reach/)
    for (const name of whole()) {
      t.ok(await verifyBackup(path.join(target, name), { passphrase: name.endsWith('.enc') ? 'pass' : undefined }), `${name} is whole`)
    }
    t.equal((await verifyBackup(older)).counts.historyRows, 300_000, 'the older backup is good')
    gateway = await startGatewayProcess(dataDir)
  }
  // The next backup in the directory clears what the killed ones left.
  const next = await runCli(['backup', '--to', target], env)
  t.equal(next.code, 0, next.stderr)
  t.same(readdirSync(target).filter((n) => n.includes('.partial') && n.startsWith('gateway-backup-')), [])
})

t.test('gateway status words every backup state', async (t) => {
  const base = { scheduled: true, directory: '/mnt/usb', at: '03:30', keep: 7, nextAt: '2026-11-23T03:30:00+01:00', running: false, last: null, lastGood: null, warning: null }
  const good = { at: '2026-11-20T03:30:00+01:00', trigger: 'schedule' as const, ok: true, file: '/mnt/usb/a.tar', bytes: 10, reason: null }
  t.same(describeBackupStatus(base), ['backups: daily at 03:30 into /mnt/usb, 7 kept, next 2026-11-23T03:30:00+01:00', 'last backup: never'])
  t.same(describeBackupStatus({ ...base, running: true, last: good, lastGood: good, warning: 'stale', nextAt: null }), [
    'backups: daily at 03:30 into /mnt/usb, 7 kept', 'backup running now', 'last backup: 2026-11-20T03:30:00+01:00, /mnt/usb/a.tar (10 bytes)', 'warning: the last good backup is more than two days old',
  ])
  const failed = { ...good, at: '2026-11-22T03:30:00+01:00', ok: false, file: null, bytes: null, reason: 'ENOSPC' }
  t.same(describeBackupStatus({ ...base, last: failed, lastGood: good, warning: 'failed' }).slice(1), ['last backup FAILED: 2026-11-22T03:30:00+01:00: ENOSPC; last good one 2026-11-20T03:30:00+01:00, /mnt/usb/a.tar'])
  t.same(describeBackupStatus({ ...base, scheduled: false, last: failed, warning: 'failed' }), ['backups: none scheduled (gateway.config.json "backup.directory")', 'last backup FAILED: 2026-11-22T03:30:00+01:00: ENOSPC'])
})
