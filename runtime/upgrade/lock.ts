// Two upgrades never run at once, and the start-up check leaves alone an upgrade that runs:
// the lock is an SQLite database opened in exclusive locking mode, as the data dir's lock
// (runtime/wiring/data-dir-lock.ts says why): the kernel drops it when its process ends
// however it ends, so a killed upgrade never leaves the box locked.
import { DatabaseSync } from 'node:sqlite'
import { takeExclusiveLock } from '../../lib/store/exclusive-lock.ts'

export class UpgradeLockedError extends Error {
  override name = 'UpgradeLockedError'
}

export interface UpgradeLock {
  release(): void
}

/** Takes the lock or throws UpgradeLockedError at once (never waits). */
export function lockUpgrades(file: string): UpgradeLock {
  const db = new DatabaseSync(file, { timeout: 0 })
  if (!takeExclusiveLock(db)) throw new UpgradeLockedError('another upgrade (or rollback) is running on this box; wait for it to end')
  return { release: () => db.close() }
}
