// The gateway's figures for Prometheus (GET /api/v2/metrics, docs/api.md "Metrics"): read
// from the running services at each scrape, so nothing is kept or updated on the request
// path but the requests' own count and duration (runtime/host/router.ts adds one per answer) and the
// webhook service's two counters. Names start tracker_gateway_; deploy/prometheus/rules.yml
// and deploy/grafana/ use them.
import {
  type DurationHistograms,
  type MetricFamily,
  type MetricsSource,
  methodAndRoute,
  type PairCounts,
  renderExposition,
} from '../../lib/kernel/metrics-text.ts'
import type { Clock } from '../../lib/kernel/clock.ts'
import type { ClockWatch } from '../../lib/kernel/clock-watch.ts'
import type { BackupRecord } from '../../lib/backup/record.ts'
import type { FleetService } from '../../lib/fleet/service.ts'
import type { OrdersService } from '../../lib/orders/service.ts'
import type { Radio } from '../../lib/radio/radio.ts'
import type { SettingsService } from '../../lib/settings/service.ts'
import type { WebhookService } from '../../lib/webhooks/service.ts'

/** What the figures are read from (the running gateway's services). */
export interface MetricsServices {
  orders: Pick<OrdersService, 'list'>
  settings: Pick<SettingsService, 'get'>
  clock: Pick<Clock, 'now'>
  webhooks: Pick<WebhookService, 'list' | 'attempts'>
  radio: Pick<Radio, 'info'>
  backupRecord: Pick<BackupRecord, 'last' | 'lastGood'>
  clockWatch: Pick<ClockWatch, 'state'> | undefined
  fleet: Pick<FleetService, 'status'>
}

const gauge = (name: string, help: string, value: number, labels?: Record<string, string>): MetricFamily => ({
  name,
  help,
  type: 'gauge',
  samples: [{ labels, value }],
})

const flag = (value: boolean) => (value ? 1 : 0)

export class GatewayMetrics implements MetricsSource {
  readonly #services: MetricsServices
  readonly #requests: PairCounts
  readonly #durations: DurationHistograms
  /** Connected WebSocket clients, once the hub runs (runtime/host/ws.ts). */
  webSocketClients: () => number = () => 0

  constructor(services: MetricsServices, requests: PairCounts, durations: DurationHistograms) {
    this.#services = services
    this.#requests = requests
    this.#durations = durations
  }

  async exposition(): Promise<string> {
    const s = this.#services
    const now = s.clock.now()
    const targetSeconds = s.settings.get().targetTimeDefault
    let started = 0
    let located = 0
    let late = 0
    for (const order of s.orders.list()) {
      if (order.state === 'started') {
        started++
        // Late as the board shows it: still waiting for its table after the target.
        if (now - order.created > targetSeconds * 1000) late++
      } else if (order.state === 'located') located++
    }
    const requests: MetricFamily = {
      name: 'tracker_gateway_http_requests_total',
      help: 'HTTP requests answered, by route (the manifest path; other: files, unknown paths) and status',
      type: 'counter',
      samples: [],
    }
    for (const [key, status, count] of this.#requests.entries()) {
      const space = key.indexOf(' ')
      requests.samples.push({ labels: { method: key.slice(0, space), route: key.slice(space + 1), status: String(status) }, value: count })
    }
    const webhooks = s.webhooks.list()
    const byState = { active: 0, failing: 0, disabled: 0 }
    for (const hook of webhooks) byState[hook.state]++
    const radio = await s.radio.info()
    const supervision = radio.supervision
    const clock = s.clockWatch?.state()
    const fleet = s.fleet.status()
    const memory = process.memoryUsage()
    const families: MetricFamily[] = [
      {
        name: 'tracker_gateway_orders_active',
        help: 'Active orders by state',
        type: 'gauge',
        samples: [
          { labels: { state: 'started' }, value: started },
          { labels: { state: 'located' }, value: located },
        ],
      },
      gauge('tracker_gateway_orders_late', 'Active orders still waiting for their table after the target time', late),
      gauge('tracker_gateway_target_seconds', 'The target time to table (setting targetTimeDefault)', targetSeconds),
      requests,
      {
        name: 'tracker_gateway_http_request_duration_seconds',
        help: 'Time from a request to its answer, by route (as requests_total; status aside)',
        type: 'histogram',
        samples: this.#durations.samples(methodAndRoute),
      },
      gauge('tracker_gateway_websocket_clients', 'Connected WebSocket clients', this.webSocketClients()),
      {
        name: 'tracker_gateway_webhook_deliveries_total',
        help: 'Webhook deliveries answered 2xx since start',
        type: 'counter',
        samples: [{ value: s.webhooks.attempts.delivered }],
      },
      {
        name: 'tracker_gateway_webhook_failures_total',
        help: 'Webhook delivery attempts that failed (to be retried) since start',
        type: 'counter',
        samples: [{ value: s.webhooks.attempts.failed }],
      },
      gauge(
        'tracker_gateway_webhook_backlog',
        'Webhook notifications waiting to be delivered, all URLs',
        webhooks.reduce((sum, hook) => sum + hook.backlog, 0),
      ),
      {
        name: 'tracker_gateway_webhooks',
        help: 'Registered webhook URLs by state',
        type: 'gauge',
        samples: Object.entries(byState).map(([state, value]) => ({ labels: { state }, value })),
      },
      gauge('tracker_gateway_radio_up', 'Whether the radio works (1) or not (0)', flag(radio.up), { kind: radio.kind }),
      // Declared without a sample for the simulated radio (no process), so a rule over them always loads.
      {
        name: 'tracker_gateway_radio_process_restarts_total',
        help: 'Radio processes started again after a failure',
        type: 'counter',
        samples: supervision ? [{ value: supervision.restarts }] : [],
      },
      {
        name: 'tracker_gateway_radio_process_running',
        help: 'Whether a radio process runs (1) or not (0)',
        type: 'gauge',
        samples: supervision ? [{ value: flag(supervision.pid !== null) }] : [],
      },
      gauge(
        'tracker_gateway_backup_last_success_timestamp_seconds',
        'When the last good backup finished (0: none yet, so that an age rule fires)',
        (s.backupRecord.lastGood?.at ?? 0) / 1000,
      ),
      gauge(
        'tracker_gateway_backup_last_failed',
        'Whether the last backup failed (1) or not (0)',
        flag(s.backupRecord.last !== null && !s.backupRecord.last.ok),
      ),
      // Unknown (null) has no sample: an alert on "not synchronised" then does not fire on a system that cannot tell.
      {
        name: 'tracker_gateway_clock_synchronized',
        help: 'Whether the system clock is synchronised (1) or not (0)',
        type: 'gauge',
        samples: clock && clock.synchronized !== null ? [{ value: flag(clock.synchronized) }] : [],
      },
      gauge(
        'tracker_gateway_clock_holding_deliveries',
        'Whether webhook deliveries wait for the clock (1) or not (0)',
        flag(clock?.holdingDeliveries ?? false),
      ),
      gauge('tracker_gateway_orders_on_unsure_clock', 'Active orders carrying a time taken on a clock not known right', clock?.ordersOnUnsureClock ?? 0),
      gauge(
        'tracker_gateway_fleet_connected',
        'Whether the fleet bridge is connected to the broker (1) or not (0; also when off)',
        flag(fleet.state === 'connected'),
        { state: fleet.state },
      ),
      gauge('tracker_gateway_fleet_backlog', 'Order changes recorded but not yet acknowledged by the broker', fleet.backlog),
      gauge('process_resident_memory_bytes', 'Resident memory of the gateway process', memory.rss),
      gauge('process_start_time_seconds', 'When the gateway process started', Math.round((Date.now() - process.uptime() * 1000) / 1000)),
    ]
    return renderExposition(families)
  }
}
