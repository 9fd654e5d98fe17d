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
import { beginRelease, getRelease, listReleases, readReleaseRange, type Release, type ReleaseUpload } from '../../lib/hq/releases.ts'
import { getRollout, listRollouts, operateRollout, startRollout, type RolloutView, type StartRollout } from '../../lib/hq/rollouts.ts'
import type { Operator } from '../../lib/hq/rollout-machine.ts'
import type { TrustedKey } from '../../lib/release/signature.ts'

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
  releases: {
    maxBytes: number
    /**
     * Begins an upload whose signature (the .sig text) is a configured release key's
     * (ReleaseRefusedError when it is not): its pieces are staged as they arrive, then verified
     * and stored.
     */
    receive(signature: string): Promise<ReleaseUpload>
    list(): Promise<Release[]>
    get(id: number): Promise<(Release & { downloadSecret: string }) | undefined>
    range(id: number, start: number, end: number): Promise<Buffer>
  }
  rollouts: {
    start(input: StartRollout): Promise<RolloutView>
    list(): Promise<RolloutView[]>
    get(id: number): Promise<RolloutView | undefined>
    /** Pause, resume or cancel; undefined when there is no such rollout. */
    operate(id: number, action: Operator): Promise<RolloutView | undefined>
  }
}

export interface RolloutDeps {
  trustedKeys: readonly TrustedKey[]
  /** Runs a round of the rollout driver now (after a start or an operator's action). */
  kick(): Promise<void>
}

export function hqServices(db: Database, config: HqConfig, ingest: () => IngestStatus, metrics: MetricsSource, rollout: RolloutDeps): HqServices {
  const view = async (id: number) => {
    await rollout.kick()
    return getRollout(db, id)
  }
  return {
    releases: {
      maxBytes: config.releases.maxBytes,
      receive: (signature) => beginRelease(db, signature, rollout.trustedKeys),
      list: () => listReleases(db),
      get: (id) => getRelease(db, id),
      range: (id, start, end) => readReleaseRange(db, id, start, end),
    },
    rollouts: {
      start: async (input) => (await view(await startRollout(db, input)))!,
      list: () => listRollouts(db),
      get: (id) => getRollout(db, id),
      operate: async (id, action) => ((await operateRollout(db, id, action)) ? view(id) : undefined),
    },
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
