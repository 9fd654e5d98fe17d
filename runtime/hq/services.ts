// What an HQ function may call: reads of the chain's sites and figures, the open alerts and
// this instance's ingest state. Never the database itself (the type is the rule, as for the
// gateway's functions).
import type { HqConfig } from '../../lib/hq/config.ts'
import type { IngestStatus } from '../../lib/hq/ingest.ts'
import { getSite, listSites, siteOrders, statistics, type LiveOrder, type Period, type SiteOverview, type Statistics } from '../../lib/hq/queries.ts'
import { openAlerts, type Alert } from '../../lib/hq/alerts.ts'
import { siteAlerts, siteHistory, type HistoryOrder, type HistoryQuery } from '../../lib/hq/history.ts'
import type { Database } from '../../lib/store/postgres.ts'
import type { MetricsSource } from '../../lib/kernel/metrics-text.ts'

export interface HqServices {
  sites: {
    list(): Promise<SiteOverview[]>
    get(siteId: string): Promise<SiteOverview | undefined>
    orders(siteId: string): Promise<LiveOrder[]>
    /** Its cleared orders between two of its local days, newest first. */
    history(siteId: string, query: HistoryQuery): Promise<HistoryOrder[]>
    /** Its alerts, open and cleared, newest first. */
    alerts(siteId: string, limit: number): Promise<Alert[]>
  }
  statistics(period: Period, site: string | null): Promise<Statistics>
  alerts(): Promise<Alert[]>
  instance: { id: string; ingest(): IngestStatus }
  /** The Prometheus figures (GET /api/hq/metrics, lib/hq/metrics.ts). */
  metrics: MetricsSource
}

export function hqServices(db: Database, config: HqConfig, ingest: () => IngestStatus, metrics: MetricsSource): HqServices {
  return {
    metrics,
    sites: {
      list: () => listSites(db, config),
      get: (siteId) => getSite(db, config, siteId),
      orders: (siteId) => siteOrders(db, config, siteId),
      history: (siteId, query) => siteHistory(db, siteId, query),
      alerts: (siteId, limit) => siteAlerts(db, siteId, limit),
    },
    statistics: (period, site) => statistics(db, config, period, site),
    alerts: () => openAlerts(db),
    instance: { id: config.instanceId, ingest },
  }
}
