// The manifest's own checksum (lib/backup/manifest.ts): a changed seq, time or count is found
// on reading, as damage, never reported as a fact of the backup.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import tar from 'tar-stream'
import { writeBackupFile } from '../../../lib/backup/archive-write.ts'
import { readBackupFile } from '../../../lib/backup/archive-read.ts'
import { backupFormat, backupFormatVersion, manifestDigest } from '../../../lib/backup/manifest.ts'

const sampleManifest = {
  format: backupFormat,
  formatVersion: backupFormatVersion,
  appVersion: '0.1.0',
  deviceId: 'gw-test',
  takenAt: 1_700_000_000_000,
  seq: 12,
  reservedUpTo: 1000,
  counts: { collections: { tokens: 1 }, activeOrders: 3, historyRows: 0, radioFiles: 0 },
  coordinatorBackupFresh: false,
} as const

/** The file with one bit flipped in the first occurrence of `text` (at `at` within it). */
function flipped(file: Buffer, text: string, at: number): Buffer {
  const index = file.indexOf(text)
  if (index < 0) throw new Error(`${text} not in the file`)
  const copy = Buffer.from(file)
  copy[index + at]! ^= 1
  return copy
}

/** The archive again with its manifest replaced (every part's bytes kept). */
async function withManifest(file: Buffer, change: (manifest: Record<string, unknown>) => Record<string, unknown>): Promise<Buffer> {
  const extract = tar.extract()
  const pack = tar.pack()
  const done = (async () => {
    const chunks: Buffer[] = []
    for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk)
    return Buffer.concat(chunks)
  })()
  extract.end(file)
  for await (const entry of extract) {
    const parts: Buffer[] = []
    for await (const chunk of entry as AsyncIterable<Buffer>) parts.push(chunk)
    const bytes = entry.header.name === 'manifest.json' ? Buffer.from(JSON.stringify(change(JSON.parse(Buffer.concat(parts).toString('utf8'))))) : Buffer.concat(parts)
    pack.entry({ name: entry.header.name }, bytes)
  }
  pack.finalize()
  return done
}

t.test('a flipped bit in seq, takenAt or a count is found by the manifest\'s own checksum', async (t) => {
  const dir = t.testdir()
  const target = path.join(dir, 'b.tar')
  const { manifest } = await writeBackupFile([{ name: 'collections/tokens.db', bytes: Buffer.from('{"_id":"a"}\n') }], { target, manifest: sampleManifest })
  t.equal(manifest.manifestSha256, manifestDigest(manifest), 'written with its checksum')
  t.same((await readBackupFile(target)).manifest, manifest, 'the whole file reads')
  const file = readFileSync(target)
  for (const [what, text, at] of [['seq 12 → 13', '"seq": 12', 8], ['takenAt', '"takenAt": 1700000000000', 23], ['activeOrders 3 → 2', '"activeOrders": 3', 16], ['reservedUpTo 1000 → 1100', '"reservedUpTo": 1000', 17]] as const) {
    const changed = path.join(dir, `changed-${at}.tar`)
    writeFileSync(changed, flipped(file, text, at))
    await t.rejects(readBackupFile(changed), { name: 'BackupDamagedError', message: /manifest does not match its own checksum/ }, what)
  }
  // The checksum itself changed, or taken away from a format 2 manifest.
  const digestAt = file.indexOf('"manifestSha256": "') + 19
  const badDigest = Buffer.from(file)
  badDigest[digestAt]! ^= 1
  writeFileSync(path.join(dir, 'bad-digest.tar'), badDigest)
  await t.rejects(readBackupFile(path.join(dir, 'bad-digest.tar')), { name: 'BackupDamagedError' }, 'a changed checksum')
  writeFileSync(path.join(dir, 'no-digest.tar'), await withManifest(file, ({ manifestSha256: _gone, ...rest }) => rest))
  await t.rejects(readBackupFile(path.join(dir, 'no-digest.tar')), { name: 'BackupDamagedError', message: /lost its own checksum/ })
  // Format 1 had none: still read (its warnings: format-1.test.ts).
  writeFileSync(path.join(dir, 'format-1.tar'), await withManifest(file, ({ manifestSha256: _gone, ...rest }) => ({ ...rest, formatVersion: 1 })))
  t.equal((await readBackupFile(path.join(dir, 'format-1.tar'))).manifest.seq, 12)
})
