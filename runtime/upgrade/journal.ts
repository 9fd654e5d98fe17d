// The upgrade journal (layout.ts: upgrade.json): each step of an upgrade is written here
// (written to a temporary file, synced, renamed over, the directory synced) before the step's
// change is made, so a box killed at any point (power cut, kill -9) knows at its next start
// what was half done: recover.ts finishes or undoes it from this record alone. Readable by
// everyone: `gateway status` and the fleet status report the last upgrade from it.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * In order. Up to 'prepared' nothing the box runs has changed; from 'switching' on the
 * current symlink may point at the new version; 'committed', 'rolled-back', 'abandoned' and
 * 'rollback-failed' end an upgrade.
 */
export const upgradeSteps = [
  'preparing',
  'backed-up',
  'prepared',
  'switching',
  'switched',
  'restarted',
  'rolling-back',
  'committed',
  'rolled-back',
  'abandoned',
  'rollback-failed',
] as const
export type UpgradeStep = (typeof upgradeSteps)[number]

export const finalSteps: ReadonlySet<UpgradeStep> = new Set(['committed', 'rolled-back', 'abandoned', 'rollback-failed'])

export interface InstalledVersion {
  version: string
  /** The version's directory under the releases dir (its name only). */
  dir: string
  /** Its data format (package.json trackerGateway.dataFormat, 1 when absent). */
  dataFormat: number
}

export interface UpgradeJournal {
  step: UpgradeStep
  /** 'upgrade' (gateway upgrade FILE|URL) or 'rollback' (gateway upgrade --rollback). */
  kind: 'upgrade' | 'rollback'
  from: InstalledVersion
  to: InstalledVersion
  /** Where `previous` pointed before (an undone upgrade puts it back). */
  previous: string | null
  /** The backup taken before the switch (a file in the data dir), once taken. */
  backup: string | null
  startedAt: string
  updatedAt: string
  /** Why it was rolled back, abandoned or could not be rolled back. */
  reason: string | null
}

export function readJournal(file: string): UpgradeJournal | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as UpgradeJournal
  } catch {
    return null
  }
}

export function writeJournal(file: string, journal: UpgradeJournal): void {
  const temporary = `${file}.tmp`
  writeFileSync(temporary, `${JSON.stringify({ ...journal, updatedAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o644 })
  syncFile(temporary)
  renameSync(temporary, file)
  syncFile(path.dirname(file))
}

export function syncFile(file: string): void {
  const fd = openSync(file, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** One line for `gateway status`: the last upgrade and how it ended (or that one runs now). */
export function describeJournal(journal: UpgradeJournal): string {
  const what =
    journal.kind === 'rollback'
      ? `rollback from ${journal.from.version} to ${journal.to.version}`
      : `upgrade from ${journal.from.version} to ${journal.to.version}`
  const at = journal.updatedAt
  switch (journal.step) {
    case 'committed':
      return `last ${what}: done ${at}${journal.kind === 'upgrade' ? ` (${journal.from.version} kept for gateway upgrade --rollback)` : ''}`
    case 'rolled-back':
      return `last ${what} FAILED and was rolled back ${at}: ${journal.reason}`
    case 'abandoned':
      return `last ${what} was abandoned before the switch ${at}: ${journal.reason}`
    case 'rollback-failed':
      return `last ${what} FAILED and the rollback failed too ${at}: ${journal.reason}`
    default:
      return `${what} in progress (step ${journal.step}, since ${journal.startedAt})`
  }
}
