// BackupService and the schedule (runtime/workers/backup-schedule.ts) on an in-memory gateway
// with a manual clock: one backup a day at the configured time, verified before the oldest
// beyond `keep` are removed, every result recorded and shown in GET /api/v2/gateway.
import t from 'tap'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fullDisk } from '../../helpers/full-disk.ts'
import path from 'node:path'
import { BackupService } from '../../../runtime/backup/backup-service.ts'
import { backupSchedulePart } from '../../../runtime/workers/backup-schedule.ts'
import { verifyBackup } from '../../../lib/backup/verify.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { until } from '../../helpers/until.ts'

t.test('scheduled backups: daily at the time, verified, the oldest removed beyond keep', async (t) => {
  const dir = t.testdir()
  const gw = await testGateway({ backup: { directory: dir, at: '03:30', keep: 2 } }, '2026-11-22T12:00:00Z')
  const record = gw.services.backupRecord
  const backups = new BackupService(gw.services, record)
  const part = backupSchedulePart({ backups, record, clock: gw.clock, log: gw.logs.log, directory: dir, at: '03:30', timezone: () => 'UTC' })
  await part.start()
  t.teardown(() => part.stop())
  t.equal(record.nextAt, Date.parse('2026-11-23T03:30:00Z'))
  await gw.services.orders.create({ name: 7, orderType: 'TO_GO', requireTracker: false })
  // A file of another gateway and a partial one of this gateway (a kill) are in the directory.
  writeFileSync(path.join(dir, 'gateway-backup-other-20261101T000000Z.tar'), 'not ours')
  const deviceId = gw.services.identity.deviceId.replace(/[^A-Za-z0-9_-]/g, '_')
  writeFileSync(path.join(dir, `gateway-backup-${deviceId}-20261101T000000Z.tar.partial`), 'cut short')
  const token = await gw.issueToken()

  const ours = () => readdirSync(dir).filter((n) => n.startsWith(`gateway-backup-${deviceId}`)).sort()
  for (let day = 1; day <= 3; day++) {
    const before = record.last?.at
    await gw.clock.advance(24 * 3600_000)
    await until(() => record.last !== null && record.last.at !== before && !record.running, `backup of day ${day}`, 60_000)
    t.equal(record.last!.ok, true, `day ${day}: ${record.last!.reason}`)
    t.equal(record.nextAt, Date.parse(`2026-11-${23 + day}T03:30:00Z`), 'armed for the next day')
  }
  t.same(ours(), ['gateway-backup-' + deviceId + '-20261124T033000Z-scheduled.tar', 'gateway-backup-' + deviceId + '-20261125T033000Z-scheduled.tar'], 'keep 2: the newest two; the partial file is gone')
  t.ok(existsSync(path.join(dir, 'gateway-backup-other-20261101T000000Z.tar')), "another gateway's file is left alone")
  const manifest = await verifyBackup(path.join(dir, ours()[1]!))
  t.equal(manifest.counts.activeOrders, 1)

  const status = await gw.json('GET /api/v2/gateway', { token })
  t.match(status.body.gatewayStatus.backup, {
    scheduled: true, directory: dir, at: '03:30', keep: 2, running: false, warning: null,
    last: { ok: true, trigger: 'schedule', file: path.join(dir, ours()[1]!), reason: null },
    nextAt: '2026-11-26T03:30:00+00:00',
  })

  // A failure (the passphrase file is missing) is recorded and warned about; the backups stay.
  gw.services.config.backup.passphraseFile = path.join(dir, 'missing-passphrase')
  await gw.clock.advance(24 * 3600_000)
  await until(() => record.last!.ok === false, 'failed backup recorded', 60_000)
  t.match(record.last!.reason, /cannot read the passphrase file/)
  t.equal(ours().length, 2, 'a failed backup removes nothing')
  t.equal((await gw.json('GET /api/v2/gateway', { token })).body.gatewayStatus.backup.warning, 'failed')
  t.same(backups.status(), record.view(gw.services.settings.timezone), 'the control socket answers the same view')
})

t.test('retention removes only the schedule\'s own backups, never those made by hand into the same directory', async (t) => {
  const dir = t.testdir()
  const gw = await testGateway({ backup: { directory: dir, at: '03:30', keep: 2 } }, '2026-11-22T12:00:00Z')
  const record = gw.services.backupRecord
  const backups = new BackupService(gw.services, record)
  const part = backupSchedulePart({ backups, record, clock: gw.clock, log: gw.logs.log, directory: dir, at: '03:30', timezone: () => 'UTC' })
  await part.start()
  t.teardown(() => part.stop())
  // Two by hand (`gateway backup`, no --to): into the configured directory.
  const byHand = [(await backups.run({ trigger: 'manual' })).file]
  await gw.clock.advance(60_000)
  byHand.push((await backups.run({ trigger: 'manual' })).file)
  t.same(byHand.map((file) => path.dirname(file)), [dir, dir])
  // One from before the schedule's files were told apart by name (an older version): left alone too.
  const deviceId = gw.services.identity.deviceId.replace(/[^A-Za-z0-9_-]/g, '_')
  const older = path.join(dir, `gateway-backup-${deviceId}-20261101T033000Z.tar`)
  writeFileSync(older, 'an older version\'s backup')
  const scheduledFiles = () => readdirSync(dir).filter((n) => n.endsWith('-scheduled.tar')).sort()
  for (let day = 1; day <= 3; day++) {
    const before = record.last?.at
    await gw.clock.advance(24 * 3600_000)
    await until(() => record.last !== null && record.last.at !== before && !record.running, `scheduled backup of day ${day}`, 60_000)
    t.equal(record.last!.ok, true, `day ${day}: ${record.last!.reason}`)
  }
  t.same(scheduledFiles(), [`gateway-backup-${deviceId}-20261124T033000Z-scheduled.tar`, `gateway-backup-${deviceId}-20261125T033000Z-scheduled.tar`], 'keep 2 of the schedule\'s own')
  for (const file of [...byHand, older]) t.ok(existsSync(file), `${path.basename(file)} is still there`)
  for (const file of byHand) t.ok(await verifyBackup(file), 'and whole')
})

t.test('a backup that fails its verification is removed, recorded as failed, and removes nothing else', async (t) => {
  const dir = t.testdir()
  const gw = await testGateway({ backup: { directory: dir, at: '03:30', keep: 1 } }, '2026-11-22T12:00:00Z')
  const good = (await new BackupService(gw.services, gw.services.backupRecord).run({ trigger: 'schedule' })).file
  await gw.clock.advance(3600_000)
  let checked: string | undefined
  const failing = new BackupService(gw.services, gw.services.backupRecord, async (file) => {
    checked = file
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
  })
  await t.rejects(failing.run({ trigger: 'schedule' }), { code: 'ENOSPC' })
  t.ok(checked, 'the written file was checked')
  t.notOk(existsSync(checked!), 'the unverified file is gone')
  t.same(readdirSync(dir), [path.basename(good)], 'keep 1, yet the good one stays')
  t.match(gw.services.backupRecord.last, { ok: false, reason: /ENOSPC/ })
})

t.test('by hand: into a file or a directory, never over a file, one at a time', async (t) => {
  const dir = t.testdir()
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  const backups = new BackupService(gw.services, gw.services.backupRecord)
  await t.rejects(backups.run({ trigger: 'manual' }), /no backup directory configured/)
  await t.rejects(backups.run({ trigger: 'manual', to: path.join(dir, 'unmounted', 'x.tar') }), /the backup directory .*unmounted does not exist \(is the stick or share mounted\?\)/)
  t.equal(gw.services.backupRecord.last!.ok, false)
  const first = backups.run({ trigger: 'manual', to: dir })
  await t.rejects(backups.run({ trigger: 'manual', to: dir }), /already running/)
  const done = await first
  t.equal(path.dirname(done.file), dir)
  t.same(done.removed, [], 'a backup by hand removes nothing')
  await t.rejects(backups.run({ trigger: 'manual', to: done.file }), /exists; a backup never overwrites/)
  const encrypted = await backups.run({ trigger: 'manual', to: path.join(dir, 'x.tar.enc'), passphrase: 'pass' })
  await t.rejects(verifyBackup(encrypted.file), { name: 'BackupPassphraseError' })
  t.equal((await verifyBackup(encrypted.file, { passphrase: 'pass' })).deviceId, gw.services.identity.deviceId)
  mkdirSync(path.join(dir, 'sub'))
  writeFileSync(path.join(dir, 'pass.txt'), 'from a file\nsecond line ignored\n')
  gw.services.config.backup.passphraseFile = path.join(dir, 'pass.txt')
  const configured = await backups.run({ trigger: 'manual', to: path.join(dir, 'sub') })
  t.match(path.basename(configured.file), /\.tar\.enc$/, 'the configured passphrase encrypts, and the name says so')
  t.ok(await verifyBackup(configured.file, { passphrase: 'from a file' }))
  writeFileSync(path.join(dir, 'pass.txt'), '\n')
  await t.rejects(backups.run({ trigger: 'manual', to: path.join(dir, 'sub') }), /is empty/)
})

t.test('a radio that writes a fresh coordinator backup is asked first; one that fails is logged', async (t) => {
  const dir = t.testdir()
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  const radio = gw.services.radio as typeof gw.services.radio & { backupCoordinator?: () => Promise<boolean> }
  let asked = 0
  radio.backupCoordinator = async () => (++asked, true)
  const backups = new BackupService(gw.services, gw.services.backupRecord)
  t.equal((await backups.run({ trigger: 'manual', to: dir })).manifest.coordinatorBackupFresh, true)
  t.equal(asked, 1)
  radio.backupCoordinator = async () => {
    throw new Error('radio busy')
  }
  t.equal((await backups.run({ trigger: 'manual', to: path.join(dir, 'b.tar') })).manifest.coordinatorBackupFresh, false)
  t.match(gw.logs.text(), /could not write a fresh coordinator backup/)
})

t.test('a full disk during a scheduled backup: recorded as failed, older backups untouched, nothing partial left', async (t) => {
  const dir = t.testdir()
  const gw = await testGateway({ backup: { directory: dir, at: '03:30', keep: 1 } }, '2026-11-22T12:00:00Z')
  const record = gw.services.backupRecord
  const backups = new BackupService(gw.services, record)
  const older = (await backups.run({ trigger: 'schedule' })).file
  const olderBytes = readFileSync(older)
  const disk = fullDisk(dir)
  t.teardown(() => disk.restore())
  await gw.clock.advance(3600_000)
  await t.rejects(backups.run({ trigger: 'schedule' }), { code: 'ENOSPC' })
  disk.restore()
  t.ok(disk.refused > 0)
  t.match(record.last, { ok: false, trigger: 'schedule', reason: /ENOSPC/ })
  t.equal(record.lastGood!.file, older)
  t.same(readdirSync(dir), [path.basename(older)], 'keep 1, yet the older one stays: the new one never completed')
  t.same(readFileSync(older), olderBytes)
  t.ok(await verifyBackup(older))
})

t.test('stopping the schedule waits for a backup in progress, even one made by hand', async (t) => {
  const dir = t.testdir()
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  const backups = new BackupService(gw.services, gw.services.backupRecord)
  const part = backupSchedulePart({ backups, record: gw.services.backupRecord, clock: gw.clock, log: gw.logs.log, directory: null, at: '03:30', timezone: () => 'UTC' })
  await part.start()
  t.equal(gw.services.backupRecord.nextAt, null, 'no directory: nothing scheduled')
  await backups.idle()
  let finished = false
  void backups.run({ trigger: 'manual', to: dir }).then(() => (finished = true))
  await part.stop()
  t.ok(finished, 'the backup had finished when stop() resolved')
})
