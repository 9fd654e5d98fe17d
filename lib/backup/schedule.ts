// When the next scheduled backup is due, what the files are called, and which old ones go.
// Only the schedule's own backups are ever removed: they alone are named `…-scheduled.tar`
// (`.tar.enc`). A backup made by hand into the same directory (`gateway backup`, named
// without it), one of another gateway, or one named by the person taking it is never
// touched, nor are backups from before this naming (format 1 versions named the schedule's
// and the hand-made ones alike, so neither can be told apart: they are left alone).
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { dayBounds, formatLocal, parseLocal } from '../kernel/time.ts'

/** The next instant after `now` whose wall-clock time in `zone` is `at` (HH:MM). */
export function nextRunAt(now: number, at: string, zone: string): number {
  const today = formatLocal(now, zone).slice(0, 10)
  const candidate = parseLocal(`${today}T${at}:00`, zone)!
  if (candidate > now) return candidate
  const tomorrow = formatLocal(dayBounds(now, zone).end + 3600_000, zone).slice(0, 10)
  return parseLocal(`${tomorrow}T${at}:00`, zone)!
}

const stampOf = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
const safeId = (deviceId: string): string => deviceId.replace(/[^A-Za-z0-9_-]/g, '_')

/** What every backup file of this gateway is named with first. */
export const backupFilePrefix = (deviceId: string): string => `gateway-backup-${safeId(deviceId)}-`

const scheduledMark = '-scheduled'

/**
 * `gateway-backup-<device>-<UTC time>.tar` by hand, `…-scheduled.tar` by the schedule,
 * `.enc` after either when encrypted: sorted by name = by age.
 */
export function backupFileName(deviceId: string, at: number, encrypted: boolean, scheduled = false): string {
  return `${backupFilePrefix(deviceId)}${stampOf(at)}${scheduled ? scheduledMark : ''}.tar${encrypted ? '.enc' : ''}`
}

/** The schedule's own backups of this gateway in `dir`, oldest first (nothing else: see the header). */
export async function listScheduledBackups(dir: string, deviceId: string): Promise<string[]> {
  const pattern = new RegExp(`^gateway-backup-${safeId(deviceId)}-\\d{8}T\\d{6}Z${scheduledMark}\\.tar(\\.enc)?$`)
  const names = (await fs.readdir(dir)).filter((name) => pattern.test(name))
  return names.sort().map((name) => path.join(dir, name))
}

/** The backups to remove so that `keep` remain, oldest first; `newest` (just verified) is never among them. */
export function beyondKeep(backups: string[], keep: number, newest: string): string[] {
  const others = backups.filter((file) => file !== newest)
  return others.slice(0, Math.max(0, others.length - (keep - 1)))
}
