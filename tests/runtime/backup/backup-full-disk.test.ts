// A backup into a really full file system (a small tmpfs: root only, skipped elsewhere; the
// helper-based case in tests/lib/backup/archive.test.ts runs anywhere): the history copy
// does not fit, or it fits and the archive does not. The failed backup frees everything it held: no descriptor
// left on the removed copy ("… (deleted)"), the space is free again (a file as large as the
// copy fits at once), and the file system can be unmounted while the gateway runs.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { backup as sqliteBackup } from 'node:sqlite'
import t from 'tap'
import { BackupService } from '../../../runtime/backup/backup-service.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { openFilesUnder } from '../../helpers/open-files.ts'

/** A tmpfs of `bytes` at a fresh mount point, or undefined where mounting is not allowed. */
function smallFileSystem(bytes: number): string | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-backup-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${Math.ceil(bytes / 4096) * 4}k`, 'tmpfs', dir], { stdio: 'ignore' })
    return dir
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return undefined
  }
}

const probe = smallFileSystem(4096)
if (probe) {
  execFileSync('umount', [probe])
  rmSync(probe, { recursive: true, force: true })
}

t.test('a backup failing on a full disk frees its space and its descriptors, plain or encrypted', { skip: probe ? false : 'mounting a tmpfs is not allowed here' }, async (t) => {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  await gw.services.orders.create({ name: 5, orderType: 'TO_GO', requireTracker: false })
  // A history of a few MB: its copy fits in the file system, the archive after it does not.
  const rows = Array.from({ length: 8_000 }, (_, i) => ({ uuid: `u-${i}-${'x'.repeat(40)}`, name: (i % 999) + 1, orderType: 'TO_GO' as const, locationName: i % 40, orderStarted: 1_700_000_000_000 + i, orderLocated: null, orderCleared: 1_700_000_100_000 + i }))
  gw.services.history.insertMany(rows)
  const measured = path.join(t.testdir(), 'history.sqlite')
  await sqliteBackup(gw.services.history.db, measured)
  const historyBytes = statSync(measured).size
  t.ok(historyBytes > 2_000_000, `a history of ${historyBytes} bytes`)

  // Room for half the history copy (it fails), for the copy but not the archive, plain or encrypted.
  for (const [room, passphrase] of [[0.5, undefined], [1.5, undefined], [1.5, 'a passphrase']] as const) {
    const mount = smallFileSystem(Math.round(historyBytes * room))!
    let mounted = true
    t.teardown(() => {
      if (mounted) execFileSync('umount', ['-l', mount])
      rmSync(mount, { recursive: true, force: true })
    })
    const backups = new BackupService(gw.services, gw.services.backupRecord)
    const kind = `${room < 1 ? 'the history copy' : 'the archive'} does not fit, ${passphrase ? 'encrypted' : 'plain'}`
    await t.rejects(backups.run({ trigger: 'manual', to: mount, passphrase }), { message: /ENOSPC|disk is full/ }, kind)
    t.same(openFilesUnder(mount), [], `nothing held open in the file system (${kind})`)
    t.same(readdirSync(mount), [], 'no file left')
    const space = statfsSync(mount)
    t.equal(space.bfree, space.blocks, 'every block is free again')
    // The space really is there: a file as large as the history copy (or the whole room) fits at once.
    writeFileSync(path.join(mount, 'filler'), Buffer.alloc(Math.min(historyBytes, Math.floor(space.blocks * space.bsize * 0.9))))
    rmSync(path.join(mount, 'filler'))
    t.match(gw.services.backupRecord.last, { ok: false, reason: /ENOSPC|disk is full/ })
    // Unmountable while the gateway runs: nothing of it is held.
    execFileSync('umount', [mount])
    mounted = false
  }
})
