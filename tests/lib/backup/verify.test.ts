import t from 'tap'
import path from 'node:path'
import { readdirSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { writeBackupFile, type BackupPart } from '../../../lib/backup/archive-write.ts'
import { backupFormat, backupFormatVersion, type BackupManifest } from '../../../lib/backup/manifest.ts'
import { checkHistoryFile, verifyBackup } from '../../../lib/backup/verify.ts'
import { HistoryStore } from '../../../lib/history/store.ts'

function manifest(collections: Record<string, number>, historyRows: number): Omit<BackupManifest, 'parts'> {
  return {
    format: backupFormat, formatVersion: backupFormatVersion, appVersion: '0.1.0', deviceId: 'gw', takenAt: 1, seq: 3, reservedUpTo: 1000,
    counts: { collections, activeOrders: 0, historyRows, radioFiles: 0 }, coordinatorBackupFresh: false,
  }
}

function history(dir: string, rows: number): string {
  const file = path.join(dir, 'h.sqlite')
  const store = new HistoryStore(file)
  for (let i = 0; i < rows; i++) {
    store.insert({ uuid: `u${i}`, name: i, orderType: 'TO_GO', locationName: null, orderStarted: 1000 + i, orderLocated: null, orderCleared: 2000 + i })
  }
  store.close()
  return file
}

t.test('a whole backup verifies; a count or a history that disagrees does not', async (t) => {
  const dir = t.testdir()
  const parts: BackupPart[] = [{ name: 'collections/tokens.db', bytes: Buffer.from('{"_id":"1"}\n{"_id":"2"}\n') }, { name: 'history.sqlite', file: history(dir, 5) }]
  const good = path.join(dir, 'good.tar')
  await writeBackupFile(parts, { target: good, passphrase: 'p', manifest: manifest({ tokens: 2 }, 5) })
  const verified = await verifyBackup(good, { passphrase: 'p' })
  t.equal(verified.counts.historyRows, 5)
  await t.rejects(verifyBackup(good, { passphrase: 'q' }), { name: 'BackupPassphraseError' })
  await writeBackupFile(parts, { target: path.join(dir, 'count.tar'), manifest: manifest({ tokens: 3 }, 5) })
  await t.rejects(verifyBackup(path.join(dir, 'count.tar')), { name: 'BackupDamagedError', message: /tokens holds 2 documents, the manifest says 3/ })
  await writeBackupFile(parts, { target: path.join(dir, 'missing.tar'), manifest: manifest({ tokens: 2, webhooks: 0 }, 5) })
  await t.rejects(verifyBackup(path.join(dir, 'missing.tar')), { message: /webhooks holds no documents/ })
  await writeBackupFile(parts, { target: path.join(dir, 'rows.tar'), manifest: manifest({ tokens: 2 }, 4) })
  await t.rejects(verifyBackup(path.join(dir, 'rows.tar')), { message: /history holds 5 rows, the manifest says 4/ })
  t.same(readdirSync(dir).filter((n) => n.includes('partial')), [], 'the scratch copy is removed every time')
})

t.test('the history copy must pass SQLite integrity_check', async (t) => {
  const dir = t.testdir({ 'not-sqlite': 'x'.repeat(8192) })
  await t.rejects(async () => checkHistoryFile(path.join(dir, 'not-sqlite')), { name: 'BackupDamagedError' })
  // A real database with a page overwritten inside an index: opens, then fails the check.
  const file = history(dir, 3000)
  const db = new DatabaseSync(file)
  const pages = Number((db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count)
  db.close()
  const { openSync, writeSync, closeSync } = await import('node:fs')
  const fd = openSync(file, 'r+')
  writeSync(fd, Buffer.alloc(4096, 0x55), 0, 4096, (pages - 2) * 4096)
  closeSync(fd)
  await t.rejects(async () => checkHistoryFile(file), { name: 'BackupDamagedError', message: /integrity|damaged/ })
  t.equal(checkHistoryFile(history(t.testdir(), 2)), 2)
})

t.test('the TLS pairs must be the ones the manifest names, each key its certificate\'s', async (t) => {
  const { makeSelfSigned } = await import('../../../runtime/host/tls/self-signed.ts')
  const { describeTlsPair } = await import('../../../lib/backup/tls-identity.ts')
  const dir = t.testdir()
  const own = makeSelfSigned({ names: ['localhost'], addresses: ['127.0.0.1'], now: new Date() })
  const other = makeSelfSigned({ names: ['localhost'], addresses: ['127.0.0.1'], now: new Date() })
  const described = describeTlsPair('self-signed', own.certPem, own.keyPem)
  const write = async (name: string, key: string, listed: object[]) => {
    const parts: BackupPart[] = [{ name: 'history.sqlite', file: history(dir, 1) }, { name: 'tls/self-signed.key', bytes: Buffer.from(key) }, { name: 'tls/self-signed.crt', bytes: Buffer.from(own.certPem) }]
    await writeBackupFile(parts, { target: path.join(dir, name), manifest: { ...manifest({}, 1), tls: listed as never } })
    return path.join(dir, name)
  }
  t.same((await verifyBackup(await write('good.tar', own.keyPem, [described]))).tls, [described])
  await t.rejects(verifyBackup(await write('other-key.tar', other.keyPem, [described])), { name: 'BackupDamagedError', message: /do not go together/ })
  await t.rejects(verifyBackup(await write('other-pin.tar', own.keyPem, [{ ...described, spkiSha256: describeTlsPair('self-signed', other.certPem, other.keyPem).spkiSha256 }])), { name: 'BackupDamagedError', message: /not the one the manifest names/ })
  await t.rejects(verifyBackup(await write('unlisted.tar', own.keyPem, [])), { name: 'BackupDamagedError', message: /not named in the manifest: self-signed/ })
})
