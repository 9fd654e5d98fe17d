// Passphrase encryption of a backup, streamed: a history of a million orders is hundreds of
// MB, so the file is sealed in records of at most 64 KiB, each with its own AES-256-GCM tag,
// and never held whole in memory. The key comes from scrypt (salt and cost in the header).
//
// Layout: a header (96 bytes; 64 in version 1), then records.
//   header  "TGWBKENC" | version 2 | log2 N | r | p | salt (16) | nonce prefix (4) | check (32)
//           | digest (32: SHA-256 of the 64 bytes before it; version 2 on)
//   record  length (u32 BE; top bit set on the last record) | ciphertext | tag (16)
// Each record's nonce is the prefix and its index (u64 BE); its additional data is the
// header's first 32 bytes, the index and the last-record flag, so records cannot be
// reordered, dropped, moved to another file, or the file cut after any record but the last
// without the tag check failing. `check` (an HMAC under a second derived key) tells a wrong
// passphrase before any record is read; `digest` (no key) tells a damaged header apart from
// a wrong passphrase: a changed salt, cost or check would otherwise fail the HMAC just like
// another passphrase does. Version 1 files (no digest) are still read; for them the two
// cannot be told apart, and the message says so.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { BackupDamagedError, BackupPassphraseError } from './errors.ts'

export const encryptedMagic = Buffer.from('TGWBKENC')
/** The header up to and with `check`, and the digest after it (version 2). */
const keyedHeaderBytes = 64
const digestBytes = 32
const writtenVersion = 2
const recordPlainBytes = 64 * 1024
const tagBytes = 16
const lastFlag = 0x8000_0000
/** scrypt cost: 2^15 × 8 × 128 bytes = 32 MiB and about 0.1 s on a Raspberry Pi 4, once per file. */
const defaultCost = { log2N: 15, r: 8, p: 1 }

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>

interface Keys {
  key: Buffer
  check: Buffer
}

async function deriveKeys(passphrase: string, salt: Buffer, cost: { log2N: number; r: number; p: number }): Promise<Keys> {
  const N = 2 ** cost.log2N
  const derived = await scryptAsync(passphrase.normalize('NFC'), salt, 64, { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r + 1024 * 1024 })
  return { key: derived.subarray(0, 32), check: derived.subarray(32) }
}

function checkValue(keys: Keys, headerStart: Buffer): Buffer {
  return createHmac('sha256', keys.check).update(headerStart).digest()
}

/** SHA-256 of the keyed header (its first 64 bytes): damage there is found without the passphrase. */
function headerDigest(header: Buffer): Buffer {
  return createHash('sha256').update(header.subarray(0, keyedHeaderBytes)).digest()
}

function nonceOf(prefix: Buffer, index: bigint): Buffer {
  const nonce = Buffer.alloc(12)
  prefix.copy(nonce, 0)
  nonce.writeBigUInt64BE(index, 4)
  return nonce
}

function additionalData(headerStart: Buffer, index: bigint, last: boolean): Buffer {
  const tail = Buffer.alloc(9)
  tail.writeBigUInt64BE(index, 0)
  tail[8] = last ? 1 : 0
  return Buffer.concat([headerStart, tail])
}

/** Whether a file starting with these bytes is an encrypted backup. */
export function isEncrypted(start: Buffer): boolean {
  return start.length >= encryptedMagic.length && start.subarray(0, encryptedMagic.length).equals(encryptedMagic)
}

/** Encrypts a byte stream (see the layout above). */
export async function* encrypt(source: AsyncIterable<Buffer>, passphrase: string, cost = defaultCost): AsyncGenerator<Buffer> {
  if (passphrase === '') throw new BackupPassphraseError('the backup passphrase is empty')
  const header = Buffer.alloc(keyedHeaderBytes + digestBytes)
  encryptedMagic.copy(header, 0)
  header[8] = writtenVersion
  header[9] = cost.log2N
  header[10] = cost.r
  header[11] = cost.p
  randomBytes(16).copy(header, 12)
  const prefix = randomBytes(4)
  prefix.copy(header, 28)
  const headerStart = header.subarray(0, 32)
  const keys = await deriveKeys(passphrase, header.subarray(12, 28), cost)
  checkValue(keys, headerStart).copy(header, 32)
  headerDigest(header).copy(header, keyedHeaderBytes)
  yield header
  let index = 0n
  const seal = (plain: Buffer, last: boolean): Buffer => {
    const cipher = createCipheriv('aes-256-gcm', keys.key, nonceOf(prefix, index))
    cipher.setAAD(additionalData(headerStart, index, last))
    const body = Buffer.concat([cipher.update(plain), cipher.final()])
    const length = Buffer.alloc(4)
    length.writeUInt32BE((plain.length | (last ? lastFlag : 0)) >>> 0)
    index++
    return Buffer.concat([length, body, cipher.getAuthTag()])
  }
  let pending: Buffer[] = []
  let pendingBytes = 0
  for await (const chunk of source) {
    pending.push(chunk)
    pendingBytes += chunk.length
    while (pendingBytes > recordPlainBytes) {
      const all = Buffer.concat(pending)
      yield seal(all.subarray(0, recordPlainBytes), false)
      pending = [all.subarray(recordPlainBytes)]
      pendingBytes = pending[0]!.length
    }
  }
  // The last record may be empty: it is there to say the file ends here.
  yield seal(Buffer.concat(pending), true)
}

/** Decrypts what encrypt() wrote; wrong passphrase and damage are told apart (errors.ts). */
export async function* decrypt(source: AsyncIterable<Buffer>, passphrase: string | undefined): AsyncGenerator<Buffer> {
  let buffered: Buffer = Buffer.alloc(0)
  const iterator = source[Symbol.asyncIterator]()
  /** Reads until `bytes` are buffered; false at the end of the file. */
  const fill = async (bytes: number): Promise<boolean> => {
    while (buffered.length < bytes) {
      const next = await iterator.next()
      if (next.done) return false
      buffered = buffered.length ? Buffer.concat([buffered, next.value]) : next.value
    }
    return true
  }
  if (!(await fill(keyedHeaderBytes))) throw new BackupDamagedError('the file is cut short (no whole header)')
  const version = buffered[8]
  if (!isEncrypted(buffered) || (version !== 1 && version !== 2)) throw new BackupDamagedError(`not an encrypted backup of a version this gateway reads (the header is damaged, or of a newer gateway: version byte ${version})`)
  const headerBytes = version === 1 ? keyedHeaderBytes : keyedHeaderBytes + digestBytes
  if (!(await fill(headerBytes))) throw new BackupDamagedError('the file is cut short (no whole header)')
  const header = buffered.subarray(0, headerBytes)
  buffered = buffered.subarray(headerBytes)
  if (version !== 1 && !headerDigest(header).equals(header.subarray(keyedHeaderBytes))) {
    throw new BackupDamagedError('the header of the encrypted backup is damaged (it does not match its own checksum): the file was changed, not the passphrase')
  }
  if (passphrase === undefined || passphrase === '') throw new BackupPassphraseError('the backup is encrypted: give its passphrase (--passphrase-file)')
  const cost = { log2N: header[9]!, r: header[10]!, p: header[11]! }
  if (cost.log2N < 10 || cost.log2N > 22 || cost.r < 1 || cost.r > 32 || cost.p < 1 || cost.p > 16) throw new BackupDamagedError('the header is damaged (scrypt cost out of range)')
  const headerStart = Buffer.from(header.subarray(0, 32))
  const prefix = Buffer.from(header.subarray(28, 32))
  const keys = await deriveKeys(passphrase, Buffer.from(header.subarray(12, 28)), cost)
  if (!timingSafeEqual(checkValue(keys, headerStart), header.subarray(32, 64))) {
    // Only a version 2 header is known whole here (its digest matched).
    throw new BackupPassphraseError(version === 1 ? 'wrong passphrase for this backup, or its header is damaged (a backup of an older gateway cannot tell which)' : 'wrong passphrase for this backup')
  }
  for (let index = 0n; ; index++) {
    if (!(await fill(4))) throw new BackupDamagedError('the file is cut short (its last record is missing)')
    const word = buffered.readUInt32BE(0)
    const last = (word & lastFlag) !== 0
    const length = word & ~lastFlag
    if (length > recordPlainBytes) throw new BackupDamagedError(`record ${index} is damaged (length ${length})`)
    if (!(await fill(4 + length + tagBytes))) throw new BackupDamagedError('the file is cut short (inside a record)')
    const decipher = createDecipheriv('aes-256-gcm', keys.key, nonceOf(prefix, index))
    decipher.setAAD(additionalData(headerStart, index, last))
    decipher.setAuthTag(buffered.subarray(4 + length, 4 + length + tagBytes))
    let plain: Buffer
    try {
      plain = Buffer.concat([decipher.update(buffered.subarray(4, 4 + length)), decipher.final()])
    } catch (error) {
      throw new BackupDamagedError(`record ${index} is damaged (its authentication tag does not match)`, { cause: error })
    }
    buffered = buffered.subarray(4 + length + tagBytes)
    if (plain.length) yield plain
    if (last) break
  }
  if (buffered.length || !(await iterator.next()).done) throw new BackupDamagedError('bytes follow the last record')
}
