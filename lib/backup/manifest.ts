// The manifest: the last entry of every backup, naming what the file holds and a SHA-256 of
// each part, so a reader knows the file is whole (a file cut short has none) and unchanged.
import * as z from '../kernel/schema/index.ts'

export const manifestName = 'manifest.json'
export const backupFormat = 'tracker-gateway-backup'
export const backupFormatVersion = 1

/** Where each kind of part lives in the archive. */
export const collectionPart = (name: string): string => `collections/${name}.db`
export const historyPart = 'history.sqlite'
export const radioPart = (file: string): string => `zigbee/${file}`

const partSchema = z.strictObject({
  name: z.string().min(1),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
})

export const manifestSchema = z.strictObject({
  format: z.literal(backupFormat),
  formatVersion: z.literal(backupFormatVersion),
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
  }),
  /** Whether the radio process wrote a fresh coordinator backup for this one (false: the files as they were). */
  coordinatorBackupFresh: z.boolean(),
  parts: z.array(partSchema),
})

export type BackupManifest = z.infer<typeof manifestSchema>
export type ManifestPart = z.infer<typeof partSchema>
