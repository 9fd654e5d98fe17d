// Scheduled backups: one a day at `backup.at` in the gateway's timezone, into
// `backup.directory` (config), while the gateway runs. The result of each is recorded by the
// BackupService; a failure is logged and tried again at the next day's time.
import type { Clock, TimerHandle } from '../../lib/kernel/clock.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { BackupRecord } from '../../lib/backup/record.ts'
import { nextRunAt } from '../../lib/backup/schedule.ts'
import type { BackupService } from '../backup/backup-service.ts'
import type { Part } from '../wiring/lifecycle.ts'

export interface BackupScheduleDeps {
  backups: Pick<BackupService, 'run' | 'idle'>
  record: BackupRecord
  clock: Clock
  log: Logger
  /** null: no scheduled backups. */
  directory: string | null
  at: string
  timezone(): string
}

export function backupSchedulePart(deps: BackupScheduleDeps): Part {
  let timer: TimerHandle | undefined
  let stopped = false
  const arm = () => {
    if (stopped) return
    const due = nextRunAt(deps.clock.now(), deps.at, deps.timezone())
    deps.record.nextAt = due
    timer = deps.clock.setTimeout(fire, Math.max(0, due - deps.clock.now()))
  }
  const fire = () => {
    timer = undefined
    deps.record.nextAt = null
    void deps.backups
      .run({ trigger: 'schedule' })
      .catch(() => undefined) // logged and recorded by the service
      .finally(arm)
  }
  return {
    name: 'backup-schedule',
    start: async () => {
      if (deps.directory === null) return
      arm()
      deps.log.info({ directory: deps.directory, at: deps.at, next: new Date(deps.record.nextAt!).toISOString() }, 'scheduled backups')
    },
    stop: async () => {
      stopped = true
      deps.clock.clearTimeout(timer)
      deps.record.nextAt = null
      // A backup in progress (scheduled or by hand) finishes before the store closes under it.
      await deps.backups.idle()
    },
  }
}
