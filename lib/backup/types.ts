// The backup status as the gateway shows it (GET /api/v2/gateway, gateway status): data only.

export interface BackupResult {
  /** When it finished (ms since the epoch). */
  at: number
  trigger: 'schedule' | 'manual'
  ok: boolean
  file: string | null
  bytes: number | null
  /** Why it failed (null when ok). */
  reason: string | null
}

export interface BackupStatusView {
  /** Whether backups run on a schedule (config `backup.directory`). */
  scheduled: boolean
  directory: string | null
  /** Time of day (HH:MM, gateway's timezone) and how many are kept. */
  at: string
  keep: number
  /** When the next scheduled one is due, or null. */
  nextAt: string | null
  running: boolean
  last: PresentedResult | null
  lastGood: PresentedResult | null
  /** 'failed' (the last one failed), 'stale' (the last good one is over two days old), or null. */
  warning: 'failed' | 'stale' | null
}

export type PresentedResult = Omit<BackupResult, 'at'> & { at: string }
