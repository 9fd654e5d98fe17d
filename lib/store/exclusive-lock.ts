// A lock held for the life of a process: an SQLite database in exclusive locking mode, whose
// lock the first write takes and keeps until close(). The kernel drops it when its process
// ends however it ends, so a killed holder never leaves it locked. Used by the data dir's lock
// (runtime/wiring/data-dir-lock.ts) and the upgrade's (runtime/upgrade/lock.ts).
import type { DatabaseSync } from 'node:sqlite'

/**
 * Takes the lock on `db` (opened with timeout 0) and notes this process as its holder: true,
 * or false when another connection holds it (SQLITE_BUSY); other errors are thrown. On false
 * or an error, `db` is closed.
 */
export function takeExclusiveLock(db: DatabaseSync): boolean {
  try {
    db.exec(
      'PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; CREATE TABLE IF NOT EXISTS holder (pid INTEGER);' +
        `BEGIN EXCLUSIVE; DELETE FROM holder; INSERT INTO holder VALUES (${process.pid}); COMMIT;`,
    )
    return true
  } catch (error) {
    db.close()
    if ((error as { errcode?: number }).errcode === 5) return false
    throw error
  }
}
