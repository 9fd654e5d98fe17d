// runtime/backup/restore.ts: only into an empty data dir or, asked to, over one moved aside;
// never over a running gateway's; a wrong passphrase or a damaged file changes nothing.
import t from 'tap'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import path from 'node:path'
import tar from 'tar-stream'
import { parseConfig } from '../../../lib/config.ts'
import { BackupService } from '../../../runtime/backup/backup-service.ts'
import { restoreBackup, seqFloorAt } from '../../../runtime/backup/restore.ts'
import { startGateway } from '../../../runtime/wiring/main.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

async function aBackup(dir: string, passphrase?: string): Promise<string> {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  await gw.services.orders.create({ name: 4, orderType: 'TO_GO', requireTracker: false, locationName: 12 } as never)
  return (
    await new BackupService(gw.services, gw.services.backupRecord).run({
      trigger: 'manual',
      to: path.join(dir, passphrase ? 'b.tar.enc' : 'b.tar'),
      passphrase,
    })
  ).file
}

const now = Date.parse('2026-11-23T08:00:00Z')

t.test('the seq floor is the restore time in microseconds, or the reserved block if higher', async (t) => {
  t.equal(seqFloorAt(now, 5000), now * 1000)
  t.equal(seqFloorAt(1, 5000), 5000)
})

t.test('into a new or empty data dir; a non-empty one only with --replace, moved aside', async (t) => {
  const root = t.testdir()
  const file = await aBackup(root)
  const fresh = path.join(root, 'fresh')
  const result = await restoreBackup({ file, dataDir: fresh, now })
  t.equal(result.seqFloor, now * 1000)
  t.same(
    result.activeOrders.map((o) => o.name),
    [4],
  )
  t.equal(result.movedAside, null)
  t.equal(statSync(fresh).mode & 0o777, 0o700)
  for (const name of readdirSync(fresh)) t.equal(statSync(path.join(fresh, name)).mode & 0o777, 0o600, `${name} is 0600`)
  t.notOk(
    readdirSync(fresh).some((n) => n.startsWith('.restoring-')),
    'no staging folder left',
  )
  t.match(readFileSync(path.join(fresh, 'seq.db'), 'utf8'), `"reservedUpTo":${now * 1000}`)

  const empty = path.join(root, 'empty')
  mkdirSync(empty)
  await restoreBackup({ file, dataDir: empty, now })
  t.ok(existsSync(path.join(empty, 'activeorders.db')))

  const used = path.join(root, 'used')
  mkdirSync(used)
  writeFileSync(path.join(used, 'tokens.db'), 'the box of before\n')
  await t.rejects(restoreBackup({ file, dataDir: used, now }), { name: 'ConfigError', message: /is not empty.*--replace/ })
  t.same(readdirSync(used), ['tokens.db'], 'refused: nothing changed')
  const replaced = await restoreBackup({ file, dataDir: used, now, replace: true })
  t.equal(replaced.movedAside, path.join(used, 'before-restore-20261123T080000Z'))
  t.equal(readFileSync(path.join(replaced.movedAside!, 'tokens.db'), 'utf8'), 'the box of before\n', 'the old content is kept aside, inside the data dir')
  t.not(readFileSync(path.join(used, 'tokens.db'), 'utf8'), 'the box of before\n')
  t.ok(existsSync(path.join(used, 'history.sqlite')))
  t.notOk(
    readdirSync(used).some((n) => n.startsWith('.restoring-')),
    'no staging folder left',
  )
  // A restore interrupted before (its staging folder) is cleared by the next one.
  mkdirSync(path.join(fresh, '.restoring-20200101T000000Z'))
  await restoreBackup({ file, dataDir: fresh, now: now + 1000, replace: true })
  t.notOk(readdirSync(fresh).some((n) => n.startsWith('.restoring-')))
})

t.test('never over a running gateway', async (t) => {
  const root = t.testdir()
  const file = await aBackup(root)
  const dataDir = path.join(root, 'live')
  const gateway = await startGateway({ config: parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false } }), log: memoryLogger('warn').log })
  t.teardown(() => gateway.stop())
  await t.rejects(restoreBackup({ file, dataDir, now, replace: true }), { name: 'ConfigError', message: /in use by the gateway with PID/ })
  t.notOk(
    readdirSync(dataDir).some((n) => n.startsWith('before-restore-') || n.startsWith('.restoring-')),
    'nothing moved',
  )
})

t.test('wrong passphrase, damaged file, a clock before the backup: refused, nothing changed', async (t) => {
  const root = t.testdir()
  const file = await aBackup(root, 'right')
  const dataDir = path.join(root, 'd')
  await t.rejects(restoreBackup({ file, dataDir, now, passphrase: 'wrong' }), { name: 'BackupPassphraseError', message: 'wrong passphrase for this backup' })
  await t.rejects(restoreBackup({ file, dataDir, now }), { name: 'BackupPassphraseError', message: /give its passphrase/ })
  const damaged = path.join(root, 'damaged.tar.enc')
  const bytes = readFileSync(file)
  bytes[bytes.length - 40] ^= 0xff
  writeFileSync(damaged, bytes)
  await t.rejects(restoreBackup({ file: damaged, dataDir, now, passphrase: 'right' }), { name: 'BackupDamagedError' })
  await t.rejects(restoreBackup({ file, dataDir, now: Date.parse('2020-01-01T00:00:00Z'), passphrase: 'right' }), {
    name: 'ConfigError',
    message: /clock .* is before the backup was taken/,
  })
  t.same(
    readdirSync(dataDir).filter((n) => !n.startsWith('gateway.')),
    [],
    'nothing restored, no staging folder left',
  )
  t.same(readdirSync(root).sort(), ['b.tar.enc', 'd', 'damaged.tar.enc'])
})

t.test('a part named to land outside the data dir is refused', async (t) => {
  const root = t.testdir()
  const pack = tar.pack()
  const evil = 'owned\n'
  pack.entry({ name: 'zigbee/../../evil' }, evil)
  pack.entry(
    { name: 'manifest.json' },
    JSON.stringify({ parts: [{ name: 'zigbee/../../evil', bytes: evil.length, sha256: createHash('sha256').update(evil).digest('hex') }] }),
  )
  pack.finalize()
  const chunks: Buffer[] = []
  for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk)
  writeFileSync(path.join(root, 'evil.tar'), Buffer.concat(chunks))
  await t.rejects(restoreBackup({ file: path.join(root, 'evil.tar'), dataDir: path.join(root, 'd'), now }), {
    name: 'BackupDamagedError',
    message: /unexpected part/,
  })
  t.notOk(existsSync(path.join(root, 'evil')))
})

t.test('a backup inside the data dir stays there: a restore cut short runs again from it', async (t) => {
  // gateway upgrade keeps its pre-upgrade backup in the data dir and restores it when a
  // rollback needs it; killed in the middle, the start-up check restores it again.
  const root = t.testdir()
  const dataDir = path.join(root, 'data')
  mkdirSync(dataDir)
  const file = path.join(dataDir, 'pre-upgrade-0.1.0.tar')
  writeFileSync(file, readFileSync(await aBackup(root)))
  writeFileSync(path.join(dataDir, 'migrated-by-0.2.0'), 'half\n')
  const first = await restoreBackup({ file, dataDir, now, replace: true })
  t.ok(existsSync(file), 'the backup is where it was')
  t.notOk(existsSync(path.join(first.movedAside!, 'pre-upgrade-0.1.0.tar')), 'not moved aside')
  t.ok(existsSync(path.join(first.movedAside!, 'migrated-by-0.2.0')), 'what was there is')
  const again = await restoreBackup({ file, dataDir, now: now + 1000, replace: true })
  t.same(
    again.activeOrders.map((o) => o.name),
    [4],
    'restored again from the same file',
  )
  t.ok(existsSync(file))
})
