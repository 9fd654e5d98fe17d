// Applies a batch of site messages in one PostgreSQL transaction. Idempotent and
// order-independent per site: a change is kept only when its seq is above the one stored for
// that order, a cleared order's summary is inserted once (its key is the order and the
// moment it was cleared), and the hour figures grow only by the summaries actually inserted.
// A duplicate, or an older change arriving after a newer one through another instance,
// leaves the same rows. Rows are written in key order and the tables in the same order in
// every transaction, so two instances applying batches of the same sites wait for each
// other instead of deadlocking; the rows every batch touches (hour figures, sites) come
// last, so they stay locked for the shortest time.
import type { SqlClient } from '../store/postgres.ts'
import type { SiteEvent, SiteHistory, SiteMessage, SiteStatus } from './messages.ts'

export const notifyChannel = 'hq_changes'

export interface ApplyOptions {
  timezoneOf: (siteId: string) => string
  targetSeconds: number
}

export interface ApplyResult {
  events: number
  history: number
  statuses: number
  sites: string[]
}

const byKey =
  <T>(key: (item: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0

/** The newest change per order (site, uuid). */
function latestEvents(events: SiteEvent[]): SiteEvent[] {
  const latest = new Map<string, SiteEvent>()
  for (const event of events) {
    const key = `${event.siteId}\u0000${event.uuid}`
    const kept = latest.get(key)
    if (!kept || kept.seq < event.seq) latest.set(key, event)
  }
  return [...latest.values()].sort(byKey((e) => `${e.siteId}\u0000${e.uuid}`))
}

function uniqueHistory(history: SiteHistory[]): SiteHistory[] {
  const unique = new Map<string, SiteHistory>()
  for (const summary of history) unique.set(`${summary.siteId}\u0000${summary.uuid}\u0000${Date.parse(summary.orderCleared)}`, summary)
  return [...unique.values()]
}

/** The status that arrived last per site (arrival order is the broker's order for that site). */
function lastStatuses(statuses: SiteStatus[]): SiteStatus[] {
  const last = new Map<string, SiteStatus>()
  for (const status of statuses) last.set(status.siteId, status)
  return [...last.values()].sort(byKey((s) => s.siteId))
}

/**
 * One figures table's share of the history rows a batch inserted (the CTE `inserted` below):
 * the same four sums at each grain, added to what the table holds. `day` and `hour` are the
 * site's own.
 */
function figuresUpsert(cte: string, table: string, keys: ('day' | 'site_id' | 'hour')[]): string {
  const source = { day: 'local_day', site_id: 'site_id', hour: 'local_hour' }
  const grouped = keys.map((key) => source[key]).join(', ')
  return `${cte} AS (
         INSERT INTO ${table} AS f (${keys.join(', ')}, orders, located, to_table_seconds, late)
         SELECT ${grouped}, count(*), count(to_table), COALESCE(sum(to_table), 0), count(*) FILTER (WHERE to_table > COALESCE(target, $11))
         FROM inserted GROUP BY ${grouped} ORDER BY ${grouped}
         ON CONFLICT (${keys.join(', ')}) DO UPDATE SET orders = f.orders + excluded.orders, located = f.located + excluded.located,
           to_table_seconds = f.to_table_seconds + excluded.to_table_seconds, late = f.late + excluded.late
       )`
}

// The history rows of a batch and, in the same statement, the figures they add to. The
// summary's times carry the site's offset, so its own day and hour are in the text; an
// order is late by its site's own target (from its status; HQ's targetSeconds, $11, for a
// site that sends none).
const insertHistoryWithFigures = `WITH inserted AS (
         INSERT INTO hq_history (site_id, uuid, seq, name, order_type, location_name, order_started, order_located, order_cleared, local_day, local_hour)
         SELECT site_id, uuid, seq, name, order_type, location_name, order_started, order_located, order_cleared,
                substr(started_text, 1, 10)::date, substr(started_text, 12, 2)::smallint
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[])
           AS h(site_id, uuid, seq, name, order_type, location_name, started_text, order_started, order_located, order_cleared)
         ORDER BY site_id, uuid
         ON CONFLICT DO NOTHING
         RETURNING site_id, local_day, local_hour, EXTRACT(EPOCH FROM order_located - order_started) AS to_table,
           (SELECT target_seconds FROM hq_sites s WHERE s.site_id = hq_history.site_id) AS target
       ), ${figuresUpsert('site_hours', 'hq_site_hours', ['day', 'site_id', 'hour'])}, ${figuresUpsert('site_days', 'hq_site_days', ['day', 'site_id'])}, ${figuresUpsert('chain_hours', 'hq_chain_hours', ['day', 'hour'])}
       SELECT count(*)::int AS inserted FROM inserted`

export async function applyBatch(tx: SqlClient, messages: SiteMessage[], options: ApplyOptions): Promise<ApplyResult> {
  const events = latestEvents(messages.filter((m): m is SiteEvent => m.kind === 'event'))
  const history = uniqueHistory(messages.filter((m): m is SiteHistory => m.kind === 'history'))
  const statuses = lastStatuses(messages.filter((m): m is SiteStatus => m.kind === 'status'))
  const sites = [...new Set(messages.map((m) => m.siteId))].sort()
  const maxSeq = new Map<string, number>()
  for (const m of messages) if (m.kind !== 'status') maxSeq.set(m.siteId, Math.max(maxSeq.get(m.siteId) ?? 0, m.seq))

  // New sites get their row; existing rows are not locked here (DO NOTHING takes no lock).
  await tx.query(`INSERT INTO hq_sites (site_id) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (site_id) DO NOTHING`, [sites])

  let eventCount = 0
  if (events.length) {
    const result = await tx.query(
      `INSERT INTO hq_live_orders (site_id, uuid, seq, name, order_type, location_name, state, created_at, state_started, change)
       SELECT site_id, uuid, seq, name, order_type, location_name, state,
              COALESCE(created_at, created::timestamp AT TIME ZONE tz), COALESCE(state_started_at, state_started::timestamp AT TIME ZONE tz), change
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::timestamptz[])
         AS e(site_id, uuid, seq, name, order_type, location_name, state, created, state_started, change, tz, created_at, state_started_at)
       ORDER BY site_id, uuid
       ON CONFLICT (site_id, uuid) DO UPDATE SET seq = excluded.seq, name = excluded.name, order_type = excluded.order_type,
         location_name = excluded.location_name, state = excluded.state, created_at = excluded.created_at,
         state_started = excluded.state_started, change = excluded.change
       WHERE hq_live_orders.seq < excluded.seq`,
      [
        events.map((e) => e.siteId),
        events.map((e) => e.uuid),
        events.map((e) => e.seq),
        events.map((e) => e.name),
        events.map((e) => e.orderType),
        events.map((e) => e.locationName),
        events.map((e) => e.state),
        events.map((e) => e.created),
        events.map((e) => e.stateStarted),
        events.map((e) => e.change),
        // Only for an older gateway's events, which carry local times without an offset.
        events.map((e) => options.timezoneOf(e.siteId)),
        events.map((e) => e.createdAt ?? null),
        events.map((e) => e.stateStartedAt ?? null),
      ],
    )
    eventCount = result.rowCount
  }

  let historyCount = 0
  if (history.length) {
    const result = await tx.query(insertHistoryWithFigures, [
      history.map((h) => h.siteId),
      history.map((h) => h.uuid),
      history.map((h) => h.seq),
      history.map((h) => h.name),
      history.map((h) => h.orderType),
      history.map((h) => h.locationName),
      history.map((h) => h.orderStarted),
      history.map((h) => h.orderStarted),
      history.map((h) => h.orderLocated),
      history.map((h) => h.orderCleared),
      options.targetSeconds,
    ])
    historyCount = (result.rows[0] as { inserted: number }).inserted
  }

  // Last, the rows every batch of these sites updates, locked in site order (so instances
  // never deadlock on them) and held only until the commit that follows.
  await tx.query('SELECT site_id FROM hq_sites WHERE site_id = ANY($1::text[]) ORDER BY site_id FOR UPDATE', [sites])
  let statusCount = 0
  if (statuses.length) {
    // A status from an older run of the gateway (startedAt) is stale. Within one run, an
    // online status older than the stored one is stale too; an offline one is not (the
    // broker's last will carries the time of its connection, older than what followed).
    // The radio: an online status without radioUp (a gateway that does not report it) makes
    // it unknown; an offline one keeps the last state known (a gateway gone says nothing of
    // its radio). radio_down_since holds from the first status of this run of the gateway
    // that said down (a gateway starting again starts its radio again).
    const result = await tx.query(
      `UPDATE hq_sites AS s SET online = n.online, reason = n.reason, device_id = n.device_id, version = n.version,
         started_at = n.started_at, status_at = n.at, status_received_at = now(),
         backlog_before = s.backlog, backlog = n.backlog, last_published_seq = n.last_published_seq, replay_after = n.replay_after,
         timezone = COALESCE(n.timezone, s.timezone), target_seconds = COALESCE(n.target_seconds, s.target_seconds),
         rollout_report = COALESCE(n.rollout_report, s.rollout_report),
         radio_up = CASE WHEN n.online OR n.radio_up IS NOT NULL THEN n.radio_up ELSE s.radio_up END,
         radio_down_since = CASE WHEN NOT (CASE WHEN n.online OR n.radio_up IS NOT NULL THEN n.radio_up ELSE s.radio_up END)
                                 THEN CASE WHEN NOT s.radio_up AND n.started_at = s.started_at THEN s.radio_down_since ELSE now() END END
       FROM unnest($1::text[], $2::boolean[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::int[], $9::bigint[], $10::boolean[], $11::bigint[], $12::text[], $13::int[], $14::text[])
         AS n(site_id, online, reason, device_id, version, started_at, at, backlog, last_published_seq, radio_up, replay_after, timezone, target_seconds, rollout_report)
       WHERE s.site_id = n.site_id
         AND (s.started_at IS NULL OR n.started_at > s.started_at
              OR (n.started_at = s.started_at AND (n.at >= s.status_at OR NOT n.online)))`,
      [
        statuses.map((s) => s.siteId),
        statuses.map((s) => s.online),
        statuses.map((s) => s.reason ?? null),
        statuses.map((s) => s.deviceId ?? null),
        statuses.map((s) => s.version ?? null),
        statuses.map((s) => s.startedAt),
        statuses.map((s) => s.at),
        statuses.map((s) => s.backlog),
        statuses.map((s) => s.lastPublishedSeq ?? null),
        statuses.map((s) => s.radioUp ?? null),
        statuses.map((s) => s.replayAfter ?? null),
        statuses.map((s) => s.timezone ?? null),
        statuses.map((s) => s.targetSeconds ?? null),
        statuses.map((s) => (s.rollout ? JSON.stringify(s.rollout) : null)),
      ],
    )
    statusCount = result.rowCount
  }

  await tx.query(
    `UPDATE hq_sites AS s SET last_seq = GREATEST(s.last_seq, n.last_seq), last_seen = now()
     FROM (SELECT * FROM unnest($1::text[], $2::bigint[]) AS n(site_id, last_seq) ORDER BY site_id) n WHERE s.site_id = n.site_id`,
    [sites, sites.map((s) => maxSeq.get(s) ?? 0)],
  )

  // Delivered to every LISTENing instance when (and only if) this transaction commits.
  await tx.query('SELECT pg_notify($1, $2)', [notifyChannel, notifyPayload(sites)])
  return { events: eventCount, history: historyCount, statuses: statusCount, sites }
}

/** NOTIFY payloads are limited to 8000 bytes: past that, "*" (every site may have changed). */
export function notifyPayload(sites: string[]): string {
  const text = JSON.stringify(sites)
  return text.length < 7900 ? text : '"*"'
}

/** The months (instants) a batch writes history into, for Partitions.ensure. */
export function clearedInstants(messages: SiteMessage[]): number[] {
  return messages.filter((m): m is SiteHistory => m.kind === 'history').map((m) => Date.parse(m.orderCleared))
}
