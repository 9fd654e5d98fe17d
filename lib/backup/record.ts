// The last backup's result, kept in the data dir (collection `backup-status`) so it survives
// restarts, and shown in GET /api/v2/gateway (`backup`), on the board and by `gateway status`.
import type { Clock } from '../kernel/clock.ts'
import { formatWithOffset } from '../kernel/time.ts'
import type { Collection } from '../store/db.ts'
import type { BackupResult, BackupStatusView, PresentedResult } from './types.ts'
export type { BackupResult, BackupStatusView, PresentedResult } from './types.ts'

interface RecordDoc {
  key: 'last'
  last: BackupResult | null
  lastGood: BackupResult | null
}

export interface BackupSchedule {
  directory: string | null
  at: string
  keep: number
}

/** A backup older than this, or a failed last one, is worth a warning on the board. */
export const staleAfterMs = 2 * 24 * 3600_000

export class BackupRecord {
  readonly #collection: Collection<RecordDoc>
  readonly #clock: Clock
  readonly #schedule: BackupSchedule
  #doc: RecordDoc
  /** Set by the scheduler (runtime/workers/backup-schedule.ts). */
  nextAt: number | null = null
  running = false

  private constructor(collection: Collection<RecordDoc>, clock: Clock, schedule: BackupSchedule, doc: RecordDoc) {
    this.#collection = collection
    this.#clock = clock
    this.#schedule = schedule
    this.#doc = doc
  }

  static async open(collection: Collection<RecordDoc>, clock: Clock, schedule: BackupSchedule): Promise<BackupRecord> {
    const stored = await collection.findOne({ key: 'last' })
    return new BackupRecord(collection, clock, schedule, stored ?? { key: 'last', last: null, lastGood: null })
  }

  get last(): BackupResult | null {
    return this.#doc.last
  }

  get lastGood(): BackupResult | null {
    return this.#doc.lastGood
  }

  /** Keeps a result (durably: it is what the board warns on). */
  async save(result: BackupResult): Promise<void> {
    const doc: RecordDoc = { key: 'last', last: result, lastGood: result.ok ? result : this.#doc.lastGood }
    await this.#collection.update({ key: 'last' }, { ...doc }, { upsert: true })
    this.#doc = doc
  }

  view(timezone: string): BackupStatusView {
    const present = (result: BackupResult | null): PresentedResult | null => (result ? { ...result, at: formatWithOffset(result.at, timezone) } : null)
    return {
      scheduled: this.#schedule.directory !== null,
      directory: this.#schedule.directory,
      at: this.#schedule.at,
      keep: this.#schedule.keep,
      nextAt: this.nextAt === null ? null : formatWithOffset(this.nextAt, timezone),
      running: this.running,
      last: present(this.#doc.last),
      lastGood: present(this.#doc.lastGood),
      warning: backupWarning(this.#doc.last, this.#doc.lastGood, this.#clock.now()),
    }
  }
}

export function backupWarning(last: BackupResult | null, lastGood: BackupResult | null, now: number): BackupStatusView['warning'] {
  if (last && !last.ok) return 'failed'
  if (lastGood && now - lastGood.at > staleAfterMs) return 'stale'
  return null
}
