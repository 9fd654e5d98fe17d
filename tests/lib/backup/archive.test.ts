// lib/backup/archive-write.ts and archive-read.ts: parts in, the same parts and a checked manifest out.
import t from 'tap'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import tar from 'tar-stream'
import { writeBackupFile } from '../../../lib/backup/archive-write.ts'
import { readBackupFile } from '../../../lib/backup/archive-read.ts'
import { backupFormat, backupFormatVersion, manifestDigest } from '../../../lib/backup/manifest.ts'
import { openFilesUnder } from '../../helpers/open-files.ts'
import { fullDisk } from '../../helpers/full-disk.ts'

const sampleManifest = {
  format: backupFormat,
  formatVersion: backupFormatVersion,
  appVersion: '0.1.0',
  deviceId: 'gw-test',
  takenAt: 1_700_000_000_000,
  seq: 12,
  reservedUpTo: 1000,
  counts: { collections: { tokens: 1 }, activeOrders: 0, historyRows: 0, radioFiles: 0 },
  coordinatorBackupFresh: false,
} as const

t.test('plain and encrypted files read back part for part', async (t) => {
  const dir = t.testdir({ 'big.bin': Buffer.alloc(200_000, 7) })
  for (const passphrase of [undefined, 'pass phrase']) {
    const target = path.join(dir, `b${passphrase ? '.enc' : ''}`)
    const { manifest, bytes } = await writeBackupFile(
      [{ name: 'collections/tokens.db', bytes: Buffer.from('{"_id":"a"}\n') }, { name: 'history.sqlite', file: path.join(dir, 'big.bin') }],
      { target, passphrase, manifest: sampleManifest },
    )
    t.equal(statSync(target).size, bytes)
    t.equal(statSync(target).mode & 0o777, 0o600)
    t.same(manifest.parts.map((p) => [p.name, p.bytes]), [['collections/tokens.db', 12], ['history.sqlite', 200_000]])
    const seen = new Map<string, number>()
    const read = await readBackupFile(target, {
      passphrase,
      sink: async (name, chunks) => {
        let n = 0
        for await (const chunk of chunks) n += chunk.length
        seen.set(name, n)
      },
    })
    t.same(read.manifest, manifest)
    t.equal(read.encrypted, passphrase !== undefined)
    t.same([...seen], [['collections/tokens.db', 12], ['history.sqlite', 200_000]])
    // A sink that reads nothing still has every byte checked.
    await readBackupFile(target, { passphrase, sink: async () => {} })
  }
  t.same(readdirSync(dir).filter((n) => n.endsWith('.partial')), [], 'no partial file left')
})

t.test('a damaged or incomplete plain file is refused, naming what is wrong', async (t) => {
  const dir = t.testdir({ 'big.bin': Buffer.alloc(100_000, 1) })
  const target = path.join(dir, 'b.tar')
  await writeBackupFile([{ name: 'history.sqlite', file: path.join(dir, 'big.bin') }], { target, manifest: sampleManifest })
  const file = readFileSync(target)
  const flipped = Buffer.from(file)
  flipped[50_000] ^= 1
  writeFileSync(path.join(dir, 'flipped'), flipped)
  await t.rejects(readBackupFile(path.join(dir, 'flipped')), { name: 'BackupDamagedError', message: /does not match its checksum/ })
  writeFileSync(path.join(dir, 'cut'), file.subarray(0, 60_000))
  await t.rejects(readBackupFile(path.join(dir, 'cut')), { name: 'BackupDamagedError' })
  writeFileSync(path.join(dir, 'other'), 'not a backup at all, just text\n'.repeat(100))
  await t.rejects(readBackupFile(path.join(dir, 'other')), { name: 'BackupDamagedError' })
})

/** A tar with the given entries, as a buffer. */
async function tarOf(entries: [string, string][]): Promise<Buffer> {
  const pack = tar.pack()
  for (const [name, text] of entries) pack.entry({ name }, text)
  pack.finalize()
  const chunks: Buffer[] = []
  for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk)
  return Buffer.concat(chunks)
}

t.test('archives that are whole tars but not whole backups', async (t) => {
  const dir = t.testdir()
  const manifest = (parts: object[]) => {
    const body = { ...sampleManifest, parts }
    return JSON.stringify({ ...body, manifestSha256: manifestDigest(body) })
  }
  const sha = (text: string) => createHash('sha256').update(text).digest('hex')
  const cases: [string, [string, string][], RegExp][] = [
    ['no manifest', [['a', 'x']], /no manifest/],
    ['part after the manifest', [['manifest.json', manifest([])], ['a', 'x']], /follows the manifest/],
    ['a part twice', [['a', 'x'], ['a', 'x'], ['manifest.json', manifest([])]], /twice/],
    ['manifest not JSON', [['manifest.json', '{']], /not JSON/],
    ['manifest of another format', [['manifest.json', JSON.stringify({ format: 'zip' })]], /not one this gateway reads/],
    ['part missing', [['manifest.json', manifest([{ name: 'a', bytes: 1, sha256: sha('x') }])]], /part a is missing/],
    ['part not listed', [['a', 'x'], ['manifest.json', manifest([])]], /not in the manifest: a/],
  ]
  for (const [what, entries, message] of cases) {
    const file = path.join(dir, what.replaceAll(' ', '-'))
    writeFileSync(file, await tarOf(entries))
    await t.rejects(readBackupFile(file), { name: 'BackupDamagedError', message }, what)
  }
})

t.test('a full disk fails the write and leaves neither the file nor a partial one', async (t) => {
  const dir = t.testdir({ 'old.tar': 'an older backup' })
  const disk = fullDisk(dir)
  t.teardown(() => disk.restore())
  const target = path.join(dir, 'new.tar')
  await t.rejects(writeBackupFile([{ name: 'a', bytes: Buffer.alloc(10_000) }], { target, manifest: sampleManifest }), { code: 'ENOSPC' })
  t.ok(disk.refused > 0)
  t.notOk(existsSync(target))
  t.same(readdirSync(dir), ['old.tar'])
  t.equal(readFileSync(path.join(dir, 'old.tar'), 'utf8'), 'an older backup')
})

t.test('a part file that cannot be read fails the write cleanly', async (t) => {
  const dir = t.testdir()
  const target = path.join(dir, 'x.tar')
  await t.rejects(writeBackupFile([{ name: 'h', file: path.join(dir, 'missing') }], { target, manifest: sampleManifest }), { code: 'ENOENT' })
  t.same(readdirSync(dir), [])
})

t.test('a large part is flushed as it is written and reads back whole', async (t) => {
  const dir = t.testdir()
  const big = Buffer.alloc(9 * 1024 * 1024, 3)
  const target = path.join(dir, 'big.tar')
  await writeBackupFile([{ name: 'history.sqlite', bytes: big }], { target, manifest: sampleManifest })
  t.equal((await readBackupFile(target)).manifest.parts[0]!.bytes, big.length)
})

t.test('a full disk while a part file is read: nothing stays open on it, plain or encrypted', async (t) => {
  const root = t.testdir({ source: { 'history.copy': Buffer.alloc(3 * 1024 * 1024, 5) }, target: {} })
  const [source, target] = [path.join(root, 'source'), path.join(root, 'target')]
  const disk = fullDisk(target)
  t.teardown(() => disk.restore())
  for (const passphrase of [undefined, 'pass phrase']) {
    await t.rejects(writeBackupFile([{ name: 'history.sqlite', file: path.join(source, 'history.copy') }], { target: path.join(target, 'b.tar'), passphrase, manifest: sampleManifest }), { code: 'ENOSPC' })
    t.same(openFilesUnder(source), [], `the part's file is closed (${passphrase ? 'encrypted' : 'plain'})`)
    t.same(openFilesUnder(target), [], 'and the target')
    t.same(readdirSync(target), [])
  }
})

t.test('a reader whose sink fails (a full disk on restore) closes the backup file', async (t) => {
  const dir = t.testdir({ 'big.bin': Buffer.alloc(2 * 1024 * 1024, 9) })
  for (const passphrase of [undefined, 'pass phrase']) {
    const target = path.join(dir, passphrase ? 'b.tar.enc' : 'b.tar')
    await writeBackupFile([{ name: 'history.sqlite', file: path.join(dir, 'big.bin') }, { name: 'collections/tokens.db', bytes: Buffer.from('{}\n') }], { target, passphrase, manifest: sampleManifest })
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' })
    await t.rejects(readBackupFile(target, { passphrase, sink: async () => Promise.reject(full) }), { code: 'ENOSPC' }, 'the sink\'s own error, not "damaged"')
    t.same(openFilesUnder(dir), [], `nothing open on the backup (${passphrase ? 'encrypted' : 'plain'})`)
  }
})

t.test('the encryption refusing, or the rename failing: nothing left open, no partial file', async (t) => {
  const dir = t.testdir({ 'part.bin': Buffer.alloc(1024 * 1024, 4), target: { 'taken.tar': {} } })
  const parts = [{ name: 'history.sqlite', file: path.join(dir, 'part.bin') }]
  const target = path.join(dir, 'target')
  await t.rejects(writeBackupFile(parts, { target: path.join(target, 'b.tar.enc'), passphrase: '', manifest: sampleManifest }), { name: 'BackupPassphraseError' })
  t.same(openFilesUnder(dir), [], 'the encryption refused: nothing open')
  t.same(readdirSync(target), ['taken.tar'])
  // A directory of that name is in the way: the file is written and synced, the rename fails.
  await t.rejects(writeBackupFile(parts, { target: path.join(target, 'taken.tar'), manifest: sampleManifest }), { code: 'EISDIR' })
  t.same(openFilesUnder(dir), [], 'the rename failed: nothing open')
  t.same(readdirSync(target), ['taken.tar'], 'no partial file')
})
