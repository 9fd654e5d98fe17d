// The manifest: the last entry of every backup, naming what the file holds and a SHA-256 of
// each part, so a reader knows the file is whole (a file cut short has none) and unchanged.
// Since format version 2 the manifest carries a SHA-256 of its own (`manifestSha256`), so a
// changed `seq`, `takenAt` or count is found too, and says which TLS certificates (and so
// which public-key pins) and which webhook signing key the backup brings back.
import { createHash } from 'node:crypto'
import * as z from '../kernel/schema/index.ts'

export const manifestName = 'manifest.json'
export const backupFormat = 'tracker-gateway-backup'
/** What this version writes; version 1 (no checksum of its own, no TLS files) is still read. */
export const backupFormatVersion = 2

/** Where each kind of part lives in the archive. */
export const collectionPart = (name: string): string => `collections/${name}.db`
export const historyPart = 'history.sqlite'
export const radioPart = (file: string): string => `zigbee/${file}`
export const tlsPart = (file: string): string => `tls/${file}`
/** The TLS files a backup carries: the box's own pair and one installed with `gateway tls install`. */
export const tlsFileNames = ['self-signed.key', 'self-signed.crt', 'installed.key', 'installed.crt'] as const

const partSchema = z.strictObject({
  name: z.string().min(1),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
})

/** A certificate the backup holds with its key: what a client may have pinned or trusted. */
const certificateSchema = z.strictObject({
  source: z.enum(['self-signed', 'installed']),
  /** SHA-256 of the public key (SubjectPublicKeyInfo), base64: the pin a restored box keeps. */
  spkiSha256: z.string(),
  /** SHA-256 of the certificate (DER), colon-separated hex. */
  fingerprintSha256: z.string(),
  validTo: z.string(),
})

export const manifestSchema = z.strictObject({
  format: z.literal(backupFormat),
  formatVersion: z.union([z.literal(1), z.literal(2)]),
  /** The gateway's version (package.json) that wrote it. */
  appVersion: z.string(),
  deviceId: z.string(),
  /** When the picture was taken (ms since the epoch, the old box's clock). */
  takenAt: z.number().int(),
  /** The last change seq recorded when the picture was taken: every part shows the box at this seq. */
  seq: z.number().int().min(0),
  /** The seq block reserved on disk then: the old box may have sent any seq up to here, and beyond after. */
  reservedUpTo: z.number().int().min(0),
  counts: z.strictObject({
    /** Documents per collection. */
    collections: z.record(z.string(), z.number().int().min(0)),
    activeOrders: z.number().int().min(0),
    historyRows: z.number().int().min(0),
    radioFiles: z.number().int().min(0),
    /** TLS files (keys and certificates; version 2 on). */
    tlsFiles: z.number().int().min(0).optional(),
  }),
  /** Whether the radio process wrote a fresh coordinator backup for this one (false: the files as they were). */
  coordinatorBackupFresh: z.boolean(),
  /** The certificates held with their keys (version 2 on; none when HTTPS never ran). */
  tls: z.array(certificateSchema).optional(),
  /** The key id (JWKS `kid`) of the webhook signing key held, or null (version 2 on). */
  webhookSigningKeyId: z.string().nullable().optional(),
  parts: z.array(partSchema),
  /** SHA-256 of the manifest without this field (manifestDigest; version 2 on, where it is required). */
  manifestSha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
})

export type BackupManifest = z.infer<typeof manifestSchema>
export type ManifestPart = z.infer<typeof partSchema>
export type BackupCertificate = z.infer<typeof certificateSchema>

/**
 * The manifest's own checksum: SHA-256 of its JSON (compact, keys in the order written)
 * without `manifestSha256`. A reader computes it over the manifest as parsed, whose keys keep
 * the file's order, so any changed value or name shows.
 */
export function manifestDigest(manifest: object): string {
  const { manifestSha256: _own, ...rest } = manifest as { manifestSha256?: unknown }
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex')
}

/** What a reader should know about a backup that verified: said by `backup verify` and `restore`. */
export function manifestWarnings(manifest: BackupManifest): string[] {
  if (manifest.formatVersion !== 1) return []
  return [
    'written by an older gateway (backup format 1): its manifest has no checksum of its own, so its time, seq and counts are not checked (every part still is)',
    'it holds no TLS key: the restored box makes a new certificate, and clients that pinned the old one must be given the new pin',
  ]
}
