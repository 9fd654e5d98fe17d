// Backups written by the previous format (1: no checksum of the manifest, no TLS files, an
// encryption header without its own digest; tests/lib/backup/fixtures, written by that
// version) still verify and restore, with warnings saying what they cannot tell.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { manifestWarnings } from '../../../lib/backup/manifest.ts'
import { verifyBackup } from '../../../lib/backup/verify.ts'

const fixtures = new URL('./fixtures/', import.meta.url).pathname

t.test('a format 1 backup verifies, with its warnings', async (t) => {
  for (const [name, passphrase] of [['format-1.tar', undefined], ['format-1.tar.enc', 'old passphrase']] as const) {
    const manifest = await verifyBackup(path.join(fixtures, name), { passphrase, scratchDir: t.testdir() })
    t.equal(manifest.formatVersion, 1)
    t.equal(manifest.deviceId, 'TG-FORMAT1')
    t.equal(manifest.counts.activeOrders, 1)
    t.match(manifestWarnings(manifest), [/no checksum of its own/, /no TLS key/])
  }
})

t.test('a format 1 encrypted backup: a wrong passphrase or a damaged header, said as both', async (t) => {
  const dir = t.testdir()
  await t.rejects(verifyBackup(path.join(fixtures, 'format-1.tar.enc'), { passphrase: 'wrong', scratchDir: dir }), { name: 'BackupPassphraseError', message: /wrong passphrase for this backup, or its header is damaged/ })
  const damaged = readFileSync(path.join(fixtures, 'format-1.tar.enc'))
  damaged[20] ^= 1
  writeFileSync(path.join(dir, 'damaged.tar.enc'), damaged)
  await t.rejects(verifyBackup(path.join(dir, 'damaged.tar.enc'), { passphrase: 'old passphrase', scratchDir: dir }), { name: 'BackupPassphraseError', message: /or its header is damaged/ })
})
