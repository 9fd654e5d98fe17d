// What a function may call: the domain services, never the store, the radio, the change log
// or the event bus. The type is the rule (ctx.services.store does not compile, see
// tests/runtime/host/function-services.test.ts) and so is the object: functionServices()
// (runtime/wiring/services-for-functions.ts) copies only these, once per router, so nothing
// else is reachable at run time either. Typed by lib's own types, so a function file's types
// never reach the composition root (tests/architecture/function-contract.test.ts).
// A new function that needs another service adds it here and there (one line each).
import type { Clock } from '../../lib/kernel/clock.ts'
import type { ClockWatch } from '../../lib/kernel/clock-watch.ts'
import type { GatewayIdentity } from '../../lib/identity.ts'
import type { HistoryPages } from '../../lib/api/history-pages.ts'
import type { HistoryStore } from '../../lib/history/store.ts'
import type { TrackerInventory } from '../../lib/inventory/trackers.ts'
import type { ActiveOrderList } from '../../lib/api/active-list.ts'
import type { OrdersService } from '../../lib/orders/service.ts'
import type { SimulatorService } from '../../lib/orders/simulator.ts'
import type { FloorService } from '../../lib/settings/floor.ts'
import type { SettingsService } from '../../lib/settings/service.ts'
import type { ButtonWindow } from '../../lib/tokens/button.ts'
import type { TokenService } from '../../lib/tokens/service.ts'
import type { ScreenPairing } from '../../lib/tokens/screen-pairing.ts'
import type { WebhookService } from '../../lib/webhooks/service.ts'
import type { Capabilities } from '../../lib/api/capabilities.ts'
import type { ConnectionCheck } from '../../lib/gateway/check.ts'
import type { CloudActivation } from '../../lib/gateway/cloud.ts'
import type { GatewayStatusService } from '../../lib/gateway/status.ts'
import type { TlsStatusHolder } from '../../lib/gateway/tls-status.ts'
import type { RepeaterInventory } from '../../lib/inventory/repeaters.ts'
import type { RadioUpkeepService } from '../../lib/radio/upkeep.ts'
import type { PairingScheduler } from '../workers/pairing.ts'
import type { MetricsSource } from '../../lib/kernel/metrics-text.ts'

export interface FunctionServices {
  orders: OrdersService
  activeList: ActiveOrderList
  /** Summaries by UUID, the statistics and the hour-by-hour figures: reads only. */
  history: Pick<HistoryStore, 'get' | 'statistics' | 'hourly'>
  historyPages: HistoryPages
  tokens: TokenService
  /** Screens signing in with a code an already signed-in screen approves. */
  screens: ScreenPairing
  /** Whether the token window is open (pressing is the button's, not an endpoint's). */
  button: Pick<ButtonWindow, 'isOpen'>
  settings: SettingsService
  floor: FloorService
  webhooks: WebhookService
  identity: GatewayIdentity
  trackers: TrackerInventory
  simulator: SimulatorService
  gateway: GatewayStatusService
  /** What HTTPS serves (GET /api/v2/gateway/tls). */
  tlsStatus: TlsStatusHolder
  capabilities: Capabilities
  cloud: CloudActivation
  check: ConnectionCheck
  pairing: PairingScheduler
  /** The repeater inventory; refresh() pings through the radio without handing it out. */
  repeaters: {
    list(): ReturnType<RepeaterInventory['list']>
    refresh(): ReturnType<RepeaterInventory['refresh']>
    clear(): ReturnType<RepeaterInventory['clear']>
  }
  clock: Pick<Clock, 'now'>
  /** Setting the gateway's clock from a board (POST /api/v2/gateway/clock); none for a test's hand-moved clock. */
  clockWatch: Pick<ClockWatch, 'setFromBoard' | 'state'> | undefined
  /** The Zigbee network's devices, interviews, removals and map; the channel-move rule. */
  radioUpkeep: RadioUpkeepService
  /** The Prometheus figures (GET /api/v2/metrics). */
  metrics: MetricsSource
}
