import t from 'tap'
import { randomBytes } from 'node:crypto'
import { decrypt, encrypt, isEncrypted } from '../../../lib/backup/encryption.ts'
import { BackupDamagedError, BackupPassphraseError } from '../../../lib/backup/errors.ts'

// A cheap scrypt cost keeps the tests quick; the format is the same.
const cost = { log2N: 10, r: 8, p: 1 }

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of source) chunks.push(chunk)
  return Buffer.concat(chunks)
}

async function* chunked(data: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size)
}

async function sealed(plain: Buffer, passphrase = 'correct horse'): Promise<Buffer> {
  return collect(encrypt(chunked(plain, 10_000), passphrase, cost))
}

t.test('round trip in records, whatever the chunking of either side', async (t) => {
  for (const size of [0, 1, 65536, 65537, 300_000]) {
    const plain = randomBytes(size)
    const file = await sealed(plain)
    t.ok(isEncrypted(file))
    t.notOk(file.includes(plain.subarray(0, Math.min(32, size))) && size >= 32, 'no plain bytes show')
    t.same(await collect(decrypt(chunked(file, 777), 'correct horse')), plain, `${size} bytes`)
  }
})

t.test('a wrong or missing passphrase is told apart from damage', async (t) => {
  const file = await sealed(Buffer.from('secret network key'))
  await t.rejects(collect(decrypt(chunked(file, 100), 'wrong')), BackupPassphraseError)
  await t.rejects(collect(decrypt(chunked(file, 100), undefined)), { name: 'BackupPassphraseError', message: /encrypted: give its passphrase/ })
  await t.rejects(collect(encrypt(chunked(file, 100), '', cost)), BackupPassphraseError)
})

t.test('every kind of damage is named as damage', async (t) => {
  const plain = randomBytes(200_000)
  const file = await sealed(plain)
  const flipped = Buffer.from(file)
  flipped[100_000] ^= 1
  await t.rejects(collect(decrypt(chunked(flipped, 4096), 'correct horse')), { name: 'BackupDamagedError', message: /authentication tag/ })
  await t.rejects(collect(decrypt(chunked(file.subarray(0, 100_000), 4096), 'correct horse')), { name: 'BackupDamagedError', message: /cut short/ })
  await t.rejects(collect(decrypt(chunked(file.subarray(0, 30), 4096), 'correct horse')), { name: 'BackupDamagedError', message: /no whole header/ })
  // Cut exactly after a whole record: only the last-record flag tells.
  const firstRecordEnd = 96 + 4 + 65536 + 16
  await t.rejects(collect(decrypt(chunked(file.subarray(0, firstRecordEnd), 4096), 'correct horse')), { name: 'BackupDamagedError', message: /last record is missing/ })
  await t.rejects(collect(decrypt(chunked(Buffer.concat([file, Buffer.from('x')]), 4096), 'correct horse')), { name: 'BackupDamagedError', message: /follow the last record/ })
  // A record moved to another place fails its tag (its index is authenticated).
  const header = file.subarray(0, 96)
  const record0 = file.subarray(96, firstRecordEnd)
  const record1 = file.subarray(firstRecordEnd, firstRecordEnd + 4 + 65536 + 16)
  const swapped = Buffer.concat([header, record1, record0, file.subarray(firstRecordEnd + record1.length)])
  await t.rejects(collect(decrypt(chunked(swapped, 4096), 'correct horse')), BackupDamagedError)
  const badCost = Buffer.from(file)
  badCost[9] = 40
  await t.rejects(collect(decrypt(chunked(badCost, 4096), 'correct horse')), { name: 'BackupDamagedError', message: /header .*damaged/ })
  const notOurs = Buffer.from(file)
  notOurs[8] = 3
  await t.rejects(collect(decrypt(chunked(notOurs, 4096), 'correct horse')), { name: 'BackupDamagedError', message: /version/ })
  const badLength = Buffer.from(file)
  badLength.writeUInt32BE(0x7fff_ffff, 96)
  await t.rejects(collect(decrypt(chunked(badLength, 4096), 'correct horse')), { name: 'BackupDamagedError', message: /length/ })
})

t.test('damage in the header is told apart from a wrong passphrase, wherever it is', async (t) => {
  const file = await sealed(randomBytes(1000))
  await t.rejects(collect(decrypt(chunked(file, 100), 'wrong')), { name: 'BackupPassphraseError', message: 'wrong passphrase for this backup' }, 'an intact header: the passphrase')
  // The cost (still in range), the salt, the nonce prefix, the passphrase check and the digest itself.
  for (const [offset, what] of [[9, 'scrypt cost'], [10, 'scrypt r'], [20, 'salt'], [29, 'nonce prefix'], [40, 'passphrase check'], [80, 'digest']] as const) {
    const damaged = Buffer.from(file)
    damaged[offset] ^= 1
    for (const passphrase of ['correct horse', 'wrong', undefined]) {
      await t.rejects(collect(decrypt(chunked(damaged, 100), passphrase)), { name: 'BackupDamagedError', message: /header of the encrypted backup is damaged .*not the passphrase/ }, `a bit of the ${what} flipped, passphrase ${passphrase}`)
    }
  }
})
