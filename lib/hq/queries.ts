// What the chain board and HQ's API read: every site at a glance, one site's open orders, and
// time to table / orders per hour for the chain or a site, today, this week or this month. A site's
// "today" and target are its own (its status sends its zone and target; HQ's configured ones
// apply only to older gateways that do not), and the chain's today is the sum of its sites'
// todays. The week and the month are the chain's calendar (config timezone), each site's figures counted on
// its own clock (its summaries carry its offset).
import type { SqlClient } from '../store/postgres.ts'
import type { HqConfig } from './config.ts'

export type QueryConfig = Pick<HqConfig, 'timezone' | 'siteTimezones' | 'targetSeconds'> & { alerts: Pick<HqConfig['alerts'], 'offlineMinutes'> }

export type Connection = 'online' | 'offline' | 'silent' | 'unknown'

export interface SiteOverview {
  siteId: string
  /** online: its bridge says so and it was heard from lately; silent: nothing for offlineMinutes. */
  connection: Connection
  /**
   * Whether the site's radio works, from its latest status: null when unknown (a gateway
   * that does not report it). Kept while the site is offline, as last known.
   */
  radioUp: boolean | null
  /** Since when HQ has seen the radio down (null unless radioUp is false). */
  radioDownSince: string | null
  reason: string | null
  version: string | null
  deviceId: string | null
  lastSeen: string
  statusAt: string | null
  backlog: number
  lastSeq: number
  activeOrders: number
  lateNow: number
  today: { orders: number; located: number; averageToTableSeconds: number | null; late: number }
  /** The site's own target and zone (from its status; HQ's configured ones for an older gateway). */
  targetSeconds: number
  timezone: string
  /** The site in the latest rollout that includes it (null: none): its state and why. */
  rollout: { id: number; state: string; reason: string | null } | null
}

/** The site's zone and target in SQL: its own (status), else HQ's configured ones ($1, $4, $2). */
const siteZone = `COALESCE(s.timezone, $4::jsonb ->> s.site_id, $1)`
const siteTarget = `COALESCE(s.target_seconds, $2)`

// Open orders and today's figures aggregated once for all sites (not looked up site by
// site): the board asks for all of them at once. A site's today is its own timezone's, so
// the hour figures are read for the days around now and matched per site.
const siteRows = `
  WITH open AS (
    SELECT l.site_id, count(*) AS active, count(*) FILTER (WHERE l.state = 'started' AND now() - l.created_at > make_interval(secs => ${siteTarget})) AS late
    FROM hq_live_orders l JOIN hq_sites s ON s.site_id = l.site_id WHERE l.state <> 'cleared' GROUP BY l.site_id
  ), today AS (
    SELECT h.site_id, sum(orders) AS orders, sum(located) AS located, sum(to_table_seconds) AS to_table_seconds, sum(late) AS late
    FROM hq_site_hours h JOIN hq_sites s ON s.site_id = h.site_id
    WHERE day BETWEEN (now() AT TIME ZONE 'UTC')::date - 1 AND (now() AT TIME ZONE 'UTC')::date + 1
      AND day = (now() AT TIME ZONE ${siteZone})::date
    GROUP BY h.site_id
  )
  SELECT s.site_id, s.online, s.reason, s.version, s.device_id, s.last_seen, s.status_at, s.backlog, s.last_seq,
         s.status_received_at, s.radio_up, s.radio_down_since, ${siteTarget} AS target_seconds, ${siteZone} AS timezone,
         COALESCE(o.active, 0)::int AS active, COALESCE(o.late, 0)::int AS late_now,
         COALESCE(f.orders, 0)::int AS orders, COALESCE(f.located, 0)::int AS located,
         f.to_table_seconds, COALESCE(f.late, 0)::int AS late_today,
         now() - s.last_seen > make_interval(secs => $3) AS silent,
         ro.rollout_id, ro.state AS rollout_state, ro.reason AS rollout_reason
  FROM hq_sites s LEFT JOIN open o ON o.site_id = s.site_id LEFT JOIN today f ON f.site_id = s.site_id
  LEFT JOIN LATERAL (SELECT rs.rollout_id, rs.state, rs.reason FROM hq_rollout_sites rs WHERE rs.site_id = s.site_id ORDER BY rs.rollout_id DESC LIMIT 1) ro ON true`

interface SiteRow {
  site_id: string
  online: boolean
  reason: string | null
  version: string | null
  device_id: string | null
  last_seen: Date
  status_at: Date | null
  status_received_at: Date | null
  radio_up: boolean | null
  radio_down_since: Date | null
  backlog: number
  last_seq: number
  active: number
  late_now: number
  orders: number
  located: number
  to_table_seconds: number | null
  late_today: number
  silent: boolean
  target_seconds: number
  timezone: string
  rollout_id: string | null
  rollout_state: string | null
  rollout_reason: string | null
}

function overview(row: SiteRow): SiteOverview {
  const connection: Connection =
    row.status_received_at === null ? (row.silent ? 'silent' : 'unknown') : !row.online ? 'offline' : row.silent ? 'silent' : 'online'
  return {
    siteId: row.site_id,
    connection,
    radioUp: row.radio_up,
    radioDownSince: row.radio_down_since?.toISOString() ?? null,
    reason: row.reason,
    version: row.version,
    deviceId: row.device_id,
    lastSeen: row.last_seen.toISOString(),
    statusAt: row.status_at?.toISOString() ?? null,
    backlog: row.backlog,
    lastSeq: row.last_seq,
    activeOrders: row.active,
    lateNow: row.late_now,
    today: {
      orders: row.orders,
      located: row.located,
      averageToTableSeconds: row.located ? Math.round((row.to_table_seconds ?? 0) / row.located) : null,
      late: row.late_today,
    },
    targetSeconds: row.target_seconds,
    timezone: row.timezone,
    rollout: row.rollout_id === null ? null : { id: Number(row.rollout_id), state: row.rollout_state!, reason: row.rollout_reason },
  }
}

const params = (config: QueryConfig) => [config.timezone, config.targetSeconds, config.alerts.offlineMinutes * 60, JSON.stringify(config.siteTimezones)]

export async function listSites(db: SqlClient, config: QueryConfig): Promise<SiteOverview[]> {
  const { rows } = await db.query<SiteRow>(`${siteRows} ORDER BY s.site_id`, params(config))
  return rows.map((row) => overview(row))
}

export async function getSite(db: SqlClient, config: QueryConfig, siteId: string): Promise<SiteOverview | undefined> {
  const { rows } = await db.query<SiteRow>(`${siteRows} WHERE s.site_id = $5`, [...params(config), siteId])
  return rows[0] && overview(rows[0])
}

export interface LiveOrder {
  uuid: string
  name: string
  orderType: string
  state: string
  locationName: string | null
  created: string
  stateStarted: string
  elapsedSeconds: number
  late: boolean
  seq: number
}

export async function siteOrders(db: SqlClient, config: QueryConfig, siteId: string): Promise<LiveOrder[]> {
  const { rows } = await db.query<{
    uuid: string
    name: string
    order_type: string
    state: string
    location_name: string | null
    created_at: Date
    state_started: Date
    elapsed: number
    seq: number
    target: number
  }>(
    `SELECT uuid, name, order_type, state, location_name, created_at, state_started, seq,
            GREATEST(0, floor(EXTRACT(EPOCH FROM now() - created_at)))::int AS elapsed,
            COALESCE((SELECT target_seconds FROM hq_sites WHERE site_id = $1), $2) AS target
     FROM hq_live_orders WHERE site_id = $1 AND state <> 'cleared' ORDER BY created_at, uuid`,
    [siteId, config.targetSeconds],
  )
  return rows.map((row) => ({
    uuid: row.uuid,
    name: row.name,
    orderType: row.order_type,
    state: row.state,
    locationName: row.location_name,
    created: row.created_at.toISOString(),
    stateStarted: row.state_started.toISOString(),
    elapsedSeconds: row.elapsed,
    late: row.state === 'started' && row.elapsed > row.target,
    seq: row.seq,
  }))
}

export type Period = 'today' | 'week' | 'month'

export interface Figures {
  orders: number
  located: number
  averageToTableSeconds: number | null
  late: number
}

export interface Statistics extends Figures {
  period: Period
  /** First and last day counted (the site's calendar for a site, the chain's for the chain). */
  from: string
  to: string
  site: string | null
  /**
   * What the days are: "sites-own-days" (the chain's today: the sum of each site's own today,
   * which near midnight are not all one date), "chain-calendar" (the chain's week or month, config
   * timezone), "site-calendar" (one site, its own zone).
   */
  basis: 'sites-own-days' | 'chain-calendar' | 'site-calendar'
  targetSeconds: number
  /** By hour of the day (0-23), summed over the period's days. */
  hours: (Figures & { hour: number })[]
  days: (Figures & { day: string })[]
  /** Per site (chain statistics only), busiest first. */
  sites: (Figures & { siteId: string })[]
}

type FigureRow = { orders: number; located: number; to_table_seconds: number | null; late: number }

const figures = (row: FigureRow): Figures => ({
  orders: row.orders,
  located: row.located,
  averageToTableSeconds: row.located ? Math.round((row.to_table_seconds ?? 0) / row.located) : null,
  late: row.late,
})

const sums = 'sum(orders)::int AS orders, sum(located)::int AS located, sum(to_table_seconds) AS to_table_seconds, sum(late)::int AS late'

export async function statistics(db: SqlClient, config: QueryConfig, period: Period, site: string | null): Promise<Statistics> {
  // Today, the Monday that starts the week and the month's first day: the site's own for one site, the chain's
  // calendar (config timezone) for the chain's week and month.
  const { rows: bounds } = await db.query<{ today: string; monday: string; first: string }>(
    `SELECT d::text AS today, (d - (EXTRACT(ISODOW FROM d)::int - 1))::text AS monday, date_trunc('month', d)::date::text AS first
     FROM (SELECT (now() AT TIME ZONE COALESCE((SELECT timezone FROM hq_sites WHERE site_id = $3), $2::jsonb ->> $3, $1))::date AS d) x`,
    [config.timezone, JSON.stringify(config.siteTimezones), site],
  )
  const { today, monday, first } = bounds[0]
  const from = period === 'today' ? today : period === 'week' ? monday : first
  // The chain's today is the sum of its sites' todays, each site's own calendar day.
  const sitesOwnDays = site === null && period === 'today'
  type Grouped = FigureRow & { hour: number | null; day: string | null; site_id: string | null; set: number }
  let rows: Grouped[]
  if (sitesOwnDays) {
    const ownDay = `f.day BETWEEN $1::date - 1 AND $1::date + 1 AND f.day = (now() AT TIME ZONE COALESCE(s.timezone, $2::jsonb ->> s.site_id, $3))::date`
    const args = [today, JSON.stringify(config.siteTimezones), config.timezone]
    const [perSite, perHour] = await Promise.all([
      db.query<Grouped>(
        `SELECT NULL::smallint AS hour, f.day, f.site_id, GROUPING(f.day, f.site_id) AS set, ${sums} FROM hq_site_days f JOIN hq_sites s ON s.site_id = f.site_id
         WHERE ${ownDay} GROUP BY GROUPING SETS ((), (f.day), (f.site_id))`,
        args,
      ),
      db.query<Grouped>(
        `SELECT f.hour, NULL AS day, NULL AS site_id, 3 AS set, ${sums} FROM hq_site_hours f JOIN hq_sites s ON s.site_id = f.site_id WHERE ${ownDay} GROUP BY f.hour`,
        args,
      ),
    ])
    const renumber: Record<number, number> = { 3: 7, 1: 5, 2: 6 }
    rows = [...perSite.rows.map((row) => ({ ...row, set: renumber[row.set]! })), ...perHour.rows]
  } else if (site === null) {
    const [perSite, perHour] = await Promise.all([
      db.query<Grouped>(
        `SELECT NULL::smallint AS hour, day, site_id, GROUPING(day, site_id) AS set, ${sums} FROM hq_site_days
         WHERE day BETWEEN $1::date AND $2::date GROUP BY GROUPING SETS ((), (day), (site_id))`,
        [from, today],
      ),
      db.query<Grouped>(
        `SELECT hour, NULL AS day, NULL AS site_id, 3 AS set, ${sums} FROM hq_chain_hours WHERE day BETWEEN $1::date AND $2::date GROUP BY hour`,
        [from, today],
      ),
    ])
    // GROUPING(day, site_id): 3 the total, 1 by day, 2 by site; renumbered as below.
    const renumber: Record<number, number> = { 3: 7, 1: 5, 2: 6 }
    rows = [...perSite.rows.map((row) => ({ ...row, set: renumber[row.set]! })), ...perHour.rows.map((row) => ({ ...row, set: 3 }))]
  } else {
    // One site: its hour figures (a few dozen rows a day), in one scan.
    const result = await db.query<Grouped>(
      `SELECT hour, day, NULL AS site_id, GROUPING(hour, day) * 2 + 1 AS set, ${sums} FROM hq_site_hours
       WHERE day BETWEEN $1::date AND $2::date AND site_id = $3 GROUP BY GROUPING SETS ((), (hour), (day))`,
      [from, today, site],
    )
    rows = result.rows
  }
  // Sets: 7 the total, 3 by hour, 5 by day, 6 by site.
  const bySet = (set: number) => rows.filter((row) => row.set === set)
  const total = { rows: bySet(7) }
  const hours = { rows: bySet(3).sort((a, b) => a.hour! - b.hour!) as (FigureRow & { hour: number })[] }
  const days = { rows: bySet(5).sort((a, b) => (a.day! < b.day! ? -1 : 1)) as (FigureRow & { day: string })[] }
  const sites = { rows: bySet(6).sort((a, b) => b.orders - a.orders || (a.site_id! < b.site_id! ? -1 : 1)) as (FigureRow & { site_id: string })[] }
  const zero: FigureRow = { orders: 0, located: 0, to_table_seconds: null, late: 0 }
  return {
    period,
    from,
    to: today,
    site,
    basis: sitesOwnDays ? 'sites-own-days' : site === null ? 'chain-calendar' : 'site-calendar',
    targetSeconds: config.targetSeconds,
    ...figures(total.rows[0]?.orders === null ? zero : (total.rows[0] ?? zero)),
    hours: hours.rows.map((row) => ({ hour: row.hour, ...figures(row) })),
    days: days.rows.map((row) => ({ day: row.day, ...figures(row) })),
    sites: sites.rows.map((row) => ({ siteId: row.site_id, ...figures(row) })),
  }
}
