// Headquarters' figures for Prometheus (GET /api/hq/metrics, docs/hq.md "Watching the chain"): the
// chain's sites, instances and open alerts as PostgreSQL holds them (the same from every
// instance: rules take max by site), and this instance's own ingest and replay counters.
// Read at each scrape; names start hq_. The instance label is hq_instance: Prometheus keeps
// `instance` for the scraped target.
import { type DurationHistograms, epochSeconds, type MetricFamily, methodAndRoute, renderExposition } from '../kernel/metrics-text.ts'
import type { SqlClient } from '../store/postgres.ts'
import { openAlerts } from './alerts.ts'
import type { IngestStatus, SiteIngest } from './ingest.ts'
import { listSites, type QueryConfig } from './queries.ts'

/** What this instance counts beside its ingest (runtime/hq/main.ts). */
export interface ReplayCounts {
  requests: number
  lostRanges: number
}

export interface HqMetricsInput {
  db: SqlClient
  config: QueryConfig & { instanceId: string }
  ingest: IngestStatus
  sites: ReadonlyMap<string, Readonly<SiteIngest>>
  replays: ReplayCounts
  /** This instance's answers by route (runtime/hq/router.ts); none: the family is declared empty. */
  requestDurations?: DurationHistograms
}

const alertKinds = ['offline', 'radio', 'backlog', 'lost', 'instance', 'rollout'] as const

function family(name: string, type: 'gauge' | 'counter', help: string): MetricFamily {
  return { name, type, help, samples: [] }
}

export async function hqExposition({ db, config, ingest, sites, replays, requestDurations }: HqMetricsInput): Promise<string> {
  const [overview, alerts, instances] = await Promise.all([
    listSites(db, config),
    openAlerts(db),
    db.query<{ instance_id: string; seen_at: Date }>('SELECT instance_id, seen_at FROM hq_instances ORDER BY instance_id'),
  ])
  const lastSeen = family('hq_site_last_seen_timestamp_seconds', 'gauge', 'When HQ last heard from the site')
  const online = family('hq_site_online', 'gauge', 'Whether the site is online (1): its status says so and it was heard from within offlineMinutes')
  const radioUp = family('hq_site_radio_up', 'gauge', 'Whether the site reports its radio working (1) or not (0); absent when its gateway does not report it')
  const backlog = family('hq_site_backlog', 'gauge', "The site's fleet backlog: changes it recorded and the broker has not acknowledged")
  const active = family('hq_site_orders_active', 'gauge', 'Open orders at the site as HQ holds them')
  const late = family('hq_site_orders_late', 'gauge', "Open orders waiting longer than the site's target")
  const lastSeq = family('hq_site_last_seq', 'gauge', 'The highest change number HQ holds of the site')
  for (const site of overview) {
    const labels = { site: site.siteId }
    lastSeen.samples.push({ labels, value: epochSeconds(Date.parse(site.lastSeen)) })
    online.samples.push({ labels, value: site.connection === 'online' ? 1 : 0 })
    if (site.radioUp !== null) radioUp.samples.push({ labels, value: site.radioUp ? 1 : 0 })
    backlog.samples.push({ labels, value: site.backlog })
    active.samples.push({ labels, value: site.activeOrders })
    late.samples.push({ labels, value: site.lateNow })
    lastSeq.samples.push({ labels, value: site.lastSeq })
  }
  const applied = family('hq_site_ingest_applied_total', 'counter', 'Messages of the site this instance committed since it started')
  const lag = family(
    'hq_site_ingest_lag_seconds',
    'gauge',
    "Seconds from the site's newest change (a status, an order created or cleared) to this instance's commit of it",
  )
  for (const [siteId, site] of [...sites].sort(([a], [b]) => a.localeCompare(b))) {
    applied.samples.push({ labels: { site: siteId }, value: site.applied })
    if (site.lagSeconds !== null) lag.samples.push({ labels: { site: siteId }, value: site.lagSeconds })
  }
  const heartbeat = family('hq_instance_heartbeat_timestamp_seconds', 'gauge', 'When each HQ instance last beat (subscribed and acknowledging)')
  for (const row of instances.rows) heartbeat.samples.push({ labels: { hq_instance: row.instance_id }, value: epochSeconds(row.seen_at.getTime()) })
  const open = family('hq_alerts_open', 'gauge', 'Open alerts by kind')
  for (const kind of alertKinds) open.samples.push({ labels: { kind }, value: alerts.filter((alert) => alert.kind === kind).length })
  const openBySite = family('hq_alert_open', 'gauge', 'One sample per open alert: its site (or hq-<instanceId>) and kind')
  for (const alert of alerts) openBySite.samples.push({ labels: { site: alert.siteId, kind: alert.kind }, value: 1 })
  const me = { hq_instance: config.instanceId }
  const flag = (value: boolean) => (value ? 1 : 0)
  const families: MetricFamily[] = [
    lastSeen,
    online,
    radioUp,
    backlog,
    active,
    late,
    lastSeq,
    applied,
    lag,
    heartbeat,
    open,
    openBySite,
    { ...family('hq_ingest_connected', 'gauge', 'Whether this instance is connected to the broker'), samples: [{ labels: me, value: flag(ingest.connected) }] },
    { ...family('hq_ingest_subscribed', 'gauge', 'Whether the broker confirmed its subscriptions'), samples: [{ labels: me, value: flag(ingest.subscribed) }] },
    { ...family('hq_ingest_pending', 'gauge', 'Messages received and not yet committed'), samples: [{ labels: me, value: ingest.pending }] },
    {
      ...family('hq_ingest_applied_total', 'counter', 'Messages this instance committed, by kind'),
      samples: (['events', 'history', 'statuses'] as const).map((kind) => ({ labels: { ...me, kind }, value: ingest.applied[kind] })),
    },
    { ...family('hq_ingest_batches_total', 'counter', 'Batches this instance committed'), samples: [{ labels: me, value: ingest.applied.batches }] },
    {
      ...family('hq_ingest_rejected_total', 'counter', 'Messages this instance rejected (not the bridge form, or naming another site)'),
      samples: [{ labels: me, value: ingest.rejected }],
    },
    {
      ...family('hq_replay_requests_total', 'counter', 'Replay requests this instance sent to sites (changes HQ missed)'),
      samples: [{ labels: me, value: replays.requests }],
    },
    {
      ...family('hq_lost_ranges_total', 'counter', 'Ranges of changes this instance found lost (the site could no longer replay them)'),
      samples: [{ labels: me, value: replays.lostRanges }],
    },
    {
      name: 'hq_http_request_duration_seconds',
      help: "Time from a request to this instance's answer, by route (the manifest path; other: board files, unknown paths)",
      type: 'histogram',
      samples: requestDurations?.samples((key) => ({ ...me, ...methodAndRoute(key) })) ?? [],
    },
  ]
  return renderExposition(families)
}
