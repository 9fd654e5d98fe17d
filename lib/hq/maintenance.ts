// Housekeeping any instance may run at any time: cleared orders stay in hq_live_orders as
// tombstones (so a change older than the clearing, arriving late through another instance,
// cannot bring the order back); after two days no such change can still be on its way
// (instances hold at most a batch, the broker replays in order), so they are removed.
import type { SqlClient } from '../store/postgres.ts'

export const tombstoneDays = 2

/** Removes tombstones older than tombstoneDays; returns how many. */
export async function purgeTombstones(db: SqlClient): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM hq_live_orders WHERE state = 'cleared' AND state_started < now() - make_interval(days => $1)`, [
    tombstoneDays,
  ])
  return rowCount
}
