// Alerts for the chain: a site offline (or silent) for longer than alerts.offlineMinutes, its
// radio down for longer than alerts.radioDownMinutes, or its backlog at least
// alerts.backlogThreshold and still growing, or changes it published that HQ did not receive
// and it could no longer replay (lib/hq/replay.ts; open for alerts.lostHours). Evaluated by every HQ
// instance on a timer; raising and clearing happen in one transaction that also queues the
// webhooks (hq_webhook_outbox), and the open alert's unique index makes each raise and each
// clear happen once, whichever instances evaluate at the same moment.
import { randomUUID } from 'node:crypto'
import type { SqlClient } from '../store/postgres.ts'
import { notifyChannel } from './apply.ts'
import type { HqConfig } from './config.ts'

/**
 * 'instance': an HQ instance stopped acknowledging; its siteId is the instance's client id (hq-<instanceId>).
 * 'rollout': the site failed its upgrade and the rollout halted (lib/hq/rollouts.ts); it clears when the rollout is resumed or cancelled.
 */
export type AlertKind = 'offline' | 'backlog' | 'radio' | 'lost' | 'instance' | 'rollout'

export interface Alert {
  id: number
  siteId: string
  kind: AlertKind
  detail: string
  raisedAt: string
  clearedAt: string | null
}

interface AlertRow {
  id: number
  site_id: string
  kind: AlertKind
  detail: string
  raised_at: Date
  cleared_at: Date | null
}

const toAlert = (row: AlertRow): Alert => ({
  id: row.id,
  siteId: row.site_id,
  kind: row.kind,
  detail: row.detail,
  raisedAt: row.raised_at.toISOString(),
  clearedAt: row.cleared_at?.toISOString() ?? null,
})

export async function openAlerts(db: SqlClient): Promise<Alert[]> {
  const { rows } = await db.query<AlertRow>('SELECT * FROM hq_alerts WHERE cleared_at IS NULL ORDER BY raised_at, id')
  return rows.map(toAlert)
}

export type AlertConfig = Pick<HqConfig['alerts'], 'offlineMinutes' | 'radioDownMinutes' | 'backlogThreshold' | 'webhooks'> &
  Partial<Pick<HqConfig['alerts'], 'lostHours' | 'instanceSilentSeconds'>>

/** The words of a 'lost' alert, from hq_sites' lost_* columns (replay.ts widens an open one's range). */
export const lostDetailSql = `'changes after seq ' || lost_after || ' through seq ' || lost_through || ' are lost: the site could no longer replay them'`

/** The webhook body for an alert raised or cleared. */
export function alertPayload(alert: Alert, raised: boolean): string {
  return JSON.stringify({ type: raised ? 'HQ_ALERT_RAISED' : 'HQ_ALERT_CLEARED', alert })
}

// Which sites are in trouble now: one row per (site, kind) with the words for the alert.
const conditions = `
  SELECT site_id, 'offline' AS kind,
         CASE WHEN status_received_at IS NOT NULL AND NOT online
              THEN 'offline since ' || to_char(status_received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || COALESCE(' (' || reason || ')', '')
              ELSE 'nothing heard since ' || to_char(last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') END AS detail
  FROM hq_sites
  WHERE (status_received_at IS NOT NULL AND NOT online AND status_received_at < now() - make_interval(secs => $1))
     OR last_seen < now() - make_interval(secs => $1)
  UNION ALL
  SELECT site_id, 'backlog', 'backlog ' || backlog || ' changes, was ' || backlog_before
  FROM hq_sites WHERE online AND backlog >= $2 AND backlog > backlog_before
  UNION ALL
  SELECT site_id, 'radio', 'radio down since ' || to_char(radio_down_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
  FROM hq_sites WHERE NOT radio_up
    -- Raised only for a site online (offline, the offline alert says it all); an open one
    -- holds while the radio is not known to be up (the site away, or back and starting its
    -- radio again), until a status says it is up.
    AND ((online AND radio_down_since < now() - make_interval(secs => $3))
         OR site_id IN (SELECT site_id FROM hq_alerts WHERE kind = 'radio' AND cleared_at IS NULL))
  UNION ALL
  SELECT site_id, 'lost', ${lostDetailSql}
  FROM hq_sites WHERE lost_at > now() - make_interval(secs => $4)
  UNION ALL
  SELECT 'hq-' || instance_id, 'instance', 'HQ instance ' || instance_id || ' has not acknowledged since ' || to_char(seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
  FROM hq_instances WHERE seen_at < now() - make_interval(secs => $5)
  UNION ALL
  SELECT rs.site_id, 'rollout', 'rollout ' || r.id || ' of version ' || rel.version || ' halted: the upgrade failed: ' || COALESCE(rs.reason, 'no reason given')
  FROM hq_rollout_sites rs JOIN hq_rollouts r ON r.id = rs.rollout_id JOIN hq_releases rel ON rel.id = r.release_id
  WHERE r.state = 'halted' AND rs.state = 'failed'`

export async function evaluateAlerts(tx: SqlClient, config: AlertConfig): Promise<{ raised: Alert[]; cleared: Alert[] }> {
  const args = [
    config.offlineMinutes * 60,
    config.backlogThreshold,
    config.radioDownMinutes * 60,
    (config.lostHours ?? 24) * 3600,
    config.instanceSilentSeconds ?? 60,
  ]
  const raised = await tx.query<AlertRow>(
    `INSERT INTO hq_alerts (site_id, kind, detail) SELECT site_id, kind, detail FROM (${conditions}) c ORDER BY site_id, kind
     ON CONFLICT (site_id, kind) WHERE cleared_at IS NULL DO NOTHING RETURNING *`,
    args,
  )
  const cleared = await tx.query<AlertRow>(
    `UPDATE hq_alerts SET cleared_at = now() WHERE cleared_at IS NULL
       AND (site_id, kind) NOT IN (SELECT site_id, kind FROM (${conditions}) c) RETURNING *`,
    args,
  )
  const changes = [...raised.rows.map((row) => [toAlert(row), true] as const), ...cleared.rows.map((row) => [toAlert(row), false] as const)]
  if (changes.length && config.webhooks.length) {
    const urls: string[] = []
    const ids: string[] = []
    const bodies: string[] = []
    for (const [alert, isRaised] of changes) {
      for (const hook of config.webhooks) {
        urls.push(hook.url)
        ids.push(`msg_${randomUUID()}`)
        bodies.push(alertPayload(alert, isRaised))
      }
    }
    await tx.query('INSERT INTO hq_webhook_outbox (url, message_id, body) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])', [urls, ids, bodies])
  }
  if (changes.length) await tx.query('SELECT pg_notify($1, $2)', [notifyChannel, '"alerts"'])
  return { raised: raised.rows.map(toAlert), cleared: cleared.rows.map(toAlert) }
}
