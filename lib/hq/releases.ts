// Releases uploaded to headquarters (issue 46): verified with the chain's release keys
// (hq.config.json releases.keys, the same Ed25519 signature a gateway checks,
// lib/release/signature.ts) before anything is stored, then kept in PostgreSQL in 1 MiB
// chunks so every HQ instance serves any byte range of it to the sites. An upload is
// refused before a byte of it is kept when its signature is not a trusted key's; it is staged
// in a private temporary file while it arrives (release-staging.ts), its digest checked
// against the signature once complete, and only then stored, in one transaction.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { parseSignature, ReleaseRefusedError, verifyRelease, type ReleaseSignature, type TrustedKey } from '../release/signature.ts'
import type { Database, SqlClient } from '../store/postgres.ts'
import { ReleaseStaging, type StagedArchive } from './release-staging.ts'

export const chunkBytes = 1024 * 1024

export interface Release {
  id: number
  version: string
  file: string
  sha256: string
  size: number
  keyId: string
  uploadedAt: string
}

interface ReleaseRow {
  id: string
  version: string
  file: string
  sha256: string
  size: string
  key_id: string
  uploaded_at: Date
  download_secret: string
}

const toRelease = (row: ReleaseRow): Release => ({
  id: Number(row.id),
  version: row.version,
  file: row.file,
  sha256: row.sha256,
  size: Number(row.size),
  keyId: row.key_id,
  uploadedAt: row.uploaded_at.toISOString(),
})

const releaseVersion = /^[0-9A-Za-z.+-]{1,64}$/

/**
 * Parses a .sig file's text and checks that a trusted key signed it, before any byte of the
 * archive is read (the archive's own digest is checked against it once it has all arrived).
 * Throws ReleaseRefusedError saying why it is refused.
 */
export function checkReleaseSignature(signatureText: string, trusted: readonly TrustedKey[]): ReleaseSignature {
  const signature = parseSignature(signatureText)
  const signed = verifyRelease(signature, signature.sha256, trusted)
  if (!releaseVersion.test(signed.version)) throw new ReleaseRefusedError(`the signed version "${signed.version}" is not a release version`)
  return signature
}

/**
 * Verifies a complete archive against its signature and stores it; resolves with the release
 * (the one already stored when the same bytes come again). Throws ReleaseRefusedError saying
 * why it is refused; nothing is stored then.
 */
export async function storeRelease(
  db: Database,
  archive: StagedArchive,
  signatureText: string,
  trusted: readonly TrustedKey[],
): Promise<{ release: Release; created: boolean }> {
  const sha256 = archive.digest()
  const signature = parseSignature(signatureText)
  const signed = verifyRelease(signature, sha256, trusted)
  if (!releaseVersion.test(signed.version)) throw new ReleaseRefusedError(`the signed version "${signed.version}" is not a release version`)
  const file = `tracker-gateway-${signed.version}.tar.gz`
  return db.transaction(async (tx) => {
    const inserted = await tx.query<ReleaseRow>(
      `INSERT INTO hq_releases (version, file, sha256, size, key_id, signature, download_secret) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (sha256) DO NOTHING RETURNING *`,
      [signed.version, file, sha256, archive.size, signed.keyId, JSON.stringify(signature), randomBytes(24).toString('hex')],
    )
    const row = inserted.rows[0]
    if (!row) {
      const { rows } = await tx.query<ReleaseRow>('SELECT * FROM hq_releases WHERE sha256 = $1', [sha256])
      return { release: toRelease(rows[0]!), created: false }
    }
    // A chunk read from the staged file, stored, then the next: one chunk in memory at a time.
    let n = 0
    for await (const piece of archive.pieces(chunkBytes)) {
      await tx.query('INSERT INTO hq_release_chunks (release_id, n, data) VALUES ($1, $2, $3)', [row.id, n++, piece])
    }
    return { release: toRelease(row), created: true }
  })
}

/** An upload under way: its pieces as they arrive, then stored (or discarded). */
export interface ReleaseUpload {
  write(chunk: Buffer): Promise<void>
  /** Verifies the whole archive and stores it (ReleaseRefusedError when refused: nothing stored). */
  store(): Promise<{ release: Release; created: boolean }>
  /** Forgets the staged bytes (always call it, stored or not). */
  discard(): Promise<void>
}

/**
 * Begins an upload: the signature is checked first (ReleaseRefusedError: nothing is staged),
 * then the archive is staged in a private temporary file (under TMPDIR) as it arrives.
 */
export async function beginRelease(db: Database, signatureText: string, trusted: readonly TrustedKey[]): Promise<ReleaseUpload> {
  checkReleaseSignature(signatureText, trusted)
  const staging = await ReleaseStaging.open()
  return {
    write: (chunk) => staging.write(chunk),
    store: () => storeRelease(db, staging, signatureText, trusted),
    discard: () => staging.close(),
  }
}

export async function listReleases(db: SqlClient): Promise<Release[]> {
  const { rows } = await db.query<ReleaseRow>('SELECT * FROM hq_releases ORDER BY id DESC')
  return rows.map(toRelease)
}

export async function getRelease(db: SqlClient, id: number): Promise<(Release & { downloadSecret: string; signature: string }) | undefined> {
  const { rows } = await db.query<ReleaseRow & { signature: string }>('SELECT * FROM hq_releases WHERE id = $1', [id])
  const row = rows[0]
  return row && { ...toRelease(row), downloadSecret: row.download_secret, signature: row.signature }
}

/** Whether `presented` is the release's download secret (compared in constant time). */
export function secretMatches(expected: string, presented: string | null): boolean {
  if (presented === null) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(presented)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Bytes [start, end] (inclusive) of a stored archive. */
export async function readReleaseRange(db: SqlClient, id: number, start: number, end: number): Promise<Buffer> {
  const first = Math.floor(start / chunkBytes)
  const last = Math.floor(end / chunkBytes)
  const { rows } = await db.query<{ n: number; data: Buffer }>(
    'SELECT n, data FROM hq_release_chunks WHERE release_id = $1 AND n BETWEEN $2 AND $3 ORDER BY n',
    [id, first, last],
  )
  const joined = Buffer.concat(rows.map((row) => row.data))
  return joined.subarray(start - first * chunkBytes, end - first * chunkBytes + 1)
}

/**
 * A Range header (one range, bytes=a-b, a- or -n) against a size: the inclusive bounds, null
 * without a header, 'invalid' for one that cannot be served (416).
 */
export function parseRange(header: string | null, size: number): { start: number; end: number } | null | 'invalid' {
  if (header === null) return null
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match || (match[1] === '' && match[2] === '')) return 'invalid'
  if (match[1] === '') {
    const suffix = Number(match[2])
    if (suffix === 0) return 'invalid'
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(match[1])
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)
  if (start >= size || end < start) return 'invalid'
  return { start, end }
}
