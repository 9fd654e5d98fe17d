// Scheduled backups: one a day at `backup.at` in the gateway's timezone, into
// `backup.directory` (config), while the gateway runs. The result of each is recorded by the
// BackupService; a failure is logged and tried again at the next day's time.
//
// The timer waits on the monotonic clock, so the time it was armed for is computed again
// whenever the wall clock's meaning changes under it: the timezone setting changed, or a
// clock step was mended (lib/kernel/clock-watch.ts 'jumped'). Without that, the next run
// stayed where the old zone or the old clock put it (shown as a time already past after a
// step forward) until a restart. A step that passes over the time does not run the missed
// backup then (it could land in the middle of service): the next one is at the time the
// corrected clock reaches next.
import type { ClockWatchEvents } from '../../lib/kernel/clock-watch.ts'
import type { Clock, TimerHandle } from '../../lib/kernel/clock.ts'
import type { Subscribable, Unsubscribe } from '../../lib/kernel/events.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { BackupRecord } from '../../lib/backup/record.ts'
import { nextRunAt } from '../../lib/backup/schedule.ts'
import type { SettingsEvents } from '../../lib/settings/service.ts'
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
  /** Its 'changed' re-arms the schedule in the new timezone. */
  settings?: Subscribable<SettingsEvents>
  /** Its 'jumped' (a mended clock step) re-arms the schedule on the corrected clock. */
  clockWatch?: Subscribable<ClockWatchEvents>
}

export function backupSchedulePart(deps: BackupScheduleDeps): Part {
  let timer: TimerHandle | undefined
  let stopped = false
  let running = false
  const unsubscribe: Unsubscribe[] = []
  const arm = () => {
    if (stopped) return
    deps.clock.clearTimeout(timer)
    const due = nextRunAt(deps.clock.now(), deps.at, deps.timezone())
    deps.record.nextAt = due
    timer = deps.clock.setTimeout(fire, Math.max(0, due - deps.clock.now()))
  }
  const fire = () => {
    timer = undefined
    deps.record.nextAt = null
    running = true
    void deps.backups
      .run({ trigger: 'schedule' })
      .catch(() => undefined) // logged and recorded by the service
      .finally(() => {
        running = false
        arm()
      })
  }
  /** The wall clock's meaning changed: the same HH:MM is another instant now. */
  const rearm = (why: string) => {
    // A scheduled backup under way arms the next one itself when it ends.
    if (stopped || running || deps.directory === null) return
    const before = deps.record.nextAt
    arm()
    if (before !== deps.record.nextAt) deps.log.info({ why, next: new Date(deps.record.nextAt!).toISOString() }, 'scheduled backups: the next one moved')
  }
  return {
    name: 'backup-schedule',
    start: async () => {
      if (deps.directory === null) return
      arm()
      let zone = deps.timezone()
      if (deps.settings) {
        unsubscribe.push(
          deps.settings.on('changed', () => {
            if (deps.timezone() === zone) return
            zone = deps.timezone()
            rearm('timezone changed')
          }),
        )
      }
      if (deps.clockWatch) unsubscribe.push(deps.clockWatch.on('jumped', () => rearm('clock stepped')))
      deps.log.info({ directory: deps.directory, at: deps.at, next: new Date(deps.record.nextAt!).toISOString() }, 'scheduled backups')
    },
    stop: async () => {
      stopped = true
      for (const off of unsubscribe.splice(0)) off()
      deps.clock.clearTimeout(timer)
      deps.record.nextAt = null
      // A backup in progress (scheduled or by hand) finishes before the store closes under it.
      await deps.backups.idle()
    },
  }
}
