// Asking sites for what HQ missed. A site whose chain (lib/hq/chain.ts) has had a hole for
// replay.graceSeconds without chain_seq moving is sent `{"from":chain_seq+1,"to":T}` on
// `<prefix>/<siteId>/replay` (T: the highest seq HQ knows the site published); its bridge
// publishes those changes again from its replay window (lib/fleet/replay.ts), through the
// usual topics and the idempotent apply, and the chain closes. Asked again after
// replay.retrySeconds while the hole stays. What the site says it can no longer replay (its
// status' replayAfter is above chain_seq) is recorded as lost (an alert, alerts.ts) and the
// chain goes on after it, so the rest can still be asked for. Every instance runs this; the
// rows are locked (SKIP LOCKED), so each site is asked by one at a time.
import type { SqlClient } from '../store/postgres.ts'
import { lostDetailSql } from './alerts.ts'
import { parseRanges, storeChains } from './chain.ts'
import type { HqConfig } from './config.ts'

export interface ReplayRequestOut {
  siteId: string
  from: number
  to: number
}

export interface LostRange {
  siteId: string
  /** Changes after this seq ... */
  after: number
  /** ... up to this one that had not arrived could not be replayed. */
  through: number
}

export interface ReplayPlan {
  requests: ReplayRequestOut[]
  lost: LostRange[]
}

interface GapRow {
  site_id: string
  chain_seq: string
  replay_after: string | null
  chain_events: string
  chain_history: string
  top: string
}

const num = (value: string | null): number | null => (value === null ? null : Number(value))

/** Sites looked at per round (the next round takes the rest). */
const perRound = 200

/**
 * Decides, in one transaction, which sites to ask for what (and records what is lost); the
 * caller publishes the requests once it has committed (a request that does not get out is
 * sent again after retrySeconds).
 */
export async function planReplays(tx: SqlClient, config: Pick<HqConfig['replay'], 'graceSeconds' | 'retrySeconds'>, lostHours: number): Promise<ReplayPlan> {
  const { rows } = await tx.query<GapRow>(
    `SELECT c.site_id, c.chain_seq, s.replay_after, c.chain_events, c.chain_history, GREATEST(s.last_published_seq, c.chain_seq) AS top
     FROM hq_site_chains c JOIN hq_sites s USING (site_id)
     WHERE c.chain_seq IS NOT NULL AND c.gap_since < now() - make_interval(secs => $1)
       AND (c.replay_requested_at IS NULL OR c.replay_requested_at < now() - make_interval(secs => $2))
     ORDER BY c.site_id LIMIT $3 FOR UPDATE OF c SKIP LOCKED`,
    [config.graceSeconds, config.retrySeconds, perRound],
  )
  const plan: ReplayPlan = { requests: [], lost: [] }
  for (const row of rows) {
    let from = Number(row.chain_seq) + 1
    // The highest seq HQ knows the site published: a change or summary that arrived, or the status.
    const top = Math.max(Number(row.top), ...[...parseRanges(row.chain_events), ...parseRanges(row.chain_history)].map(([, high]) => high))
    const replayAfter = num(row.replay_after)
    if (replayAfter !== null && replayAfter >= from) {
      // The site no longer holds what lies between: record it (widening a loss still
      // alerted), move on past it, and see what is still missing after it.
      const through = Math.min(replayAfter, top)
      plan.lost.push({ siteId: row.site_id, after: from - 1, through })
      await tx.query(
        `UPDATE hq_sites SET lost_after = CASE WHEN lost_at > now() - make_interval(secs => $4) THEN LEAST(lost_after, $3) ELSE $3 END,
           lost_through = CASE WHEN lost_at > now() - make_interval(secs => $4) THEN GREATEST(lost_through, $2) ELSE $2 END,
           lost_at = now()
         WHERE site_id = $1`,
        [row.site_id, through, from - 1, lostHours * 3600],
      )
      await tx.query('UPDATE hq_site_chains SET chain_seq = $2 WHERE site_id = $1', [row.site_id, through])
      await tx.query(
        `UPDATE hq_alerts a SET detail = ${lostDetailSql} FROM hq_sites s
         WHERE a.site_id = $1 AND a.kind = 'lost' AND a.cleared_at IS NULL AND s.site_id = a.site_id`,
        [row.site_id],
      )
      await storeChains(tx, new Map([[row.site_id, undefined]]))
      const after = await tx.query<{ chain_seq: string; gap: boolean }>(
        'SELECT chain_seq, gap_since IS NOT NULL AS gap FROM hq_site_chains WHERE site_id = $1',
        [row.site_id],
      )
      if (!after.rows[0]!.gap) continue
      from = Number(after.rows[0]!.chain_seq) + 1
    }
    if (from > top) continue
    plan.requests.push({ siteId: row.site_id, from, to: top })
    await tx.query('UPDATE hq_site_chains SET replay_requested_at = now(), replay_requests = replay_requests + 1 WHERE site_id = $1', [row.site_id])
  }
  return plan
}
