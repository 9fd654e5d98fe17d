// One site's past at HQ: its cleared orders (hq_history, newest first, between two of its
// local days) and its alerts, open and cleared (hq_alerts, newest first). Read-only, for the
// API and its CSV export.
import type { SqlClient } from '../store/postgres.ts'
import type { Alert } from './alerts.ts'

export interface HistoryOrder {
  uuid: string
  name: string
  orderType: string
  locationName: string | null
  orderStarted: string
  orderLocated: string | null
  orderCleared: string
  /** Seconds from start to table (null: never located). */
  toTableSeconds: number | null
  /** The site's local day and hour of the clearing (what its figures count it in). */
  localDay: string
  seq: number
}

export interface HistoryQuery {
  /** First and last local day (YYYY-MM-DD), both included. */
  from: string
  to: string
  limit: number
}

export async function siteHistory(db: SqlClient, siteId: string, query: HistoryQuery): Promise<HistoryOrder[]> {
  const { rows } = await db.query<{
    uuid: string
    name: string
    order_type: string
    location_name: string | null
    order_started: Date
    order_located: Date | null
    order_cleared: Date
    local_day: string
    seq: number
  }>(
    `SELECT uuid, name, order_type, location_name, order_started, order_located, order_cleared, local_day::text AS local_day, seq
     FROM hq_history WHERE site_id = $1 AND local_day BETWEEN $2::date AND $3::date
       -- the clearing instant bounds the partitions scanned: a local day lies within a day of its UTC date
       AND order_cleared >= $2::date - 1 AND order_cleared < $3::date + 2
     ORDER BY order_cleared DESC, uuid LIMIT $4`,
    [siteId, query.from, query.to, query.limit],
  )
  return rows.map((row) => ({
    uuid: row.uuid,
    name: row.name,
    orderType: row.order_type,
    locationName: row.location_name,
    orderStarted: row.order_started.toISOString(),
    orderLocated: row.order_located?.toISOString() ?? null,
    orderCleared: row.order_cleared.toISOString(),
    toTableSeconds: row.order_located ? Math.round((row.order_located.getTime() - row.order_started.getTime()) / 1000) : null,
    localDay: row.local_day,
    seq: Number(row.seq),
  }))
}

/** A site's alerts, open and cleared, newest first. */
export async function siteAlerts(db: SqlClient, siteId: string, limit: number): Promise<Alert[]> {
  const { rows } = await db.query<{ id: string; site_id: string; kind: Alert['kind']; detail: string; raised_at: Date; cleared_at: Date | null }>(
    'SELECT id, site_id, kind, detail, raised_at, cleared_at FROM hq_alerts WHERE site_id = $1 ORDER BY raised_at DESC, id DESC LIMIT $2',
    [siteId, limit],
  )
  return rows.map((row) => ({
    id: Number(row.id),
    siteId: row.site_id,
    kind: row.kind,
    detail: row.detail,
    raisedAt: row.raised_at.toISOString(),
    clearedAt: row.cleared_at?.toISOString() ?? null,
  }))
}
