// What a function may call: the domain services, never the store, the radio, the change log
// or the event bus. The type is the rule (ctx.services.store does not compile, see
// tests/runtime/host/function-services.test.ts) and so is the object: functionServices() copies
// only these, once per router, so nothing else is reachable at run time either.
// A new function that needs another service adds it here (one line each).
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
import type { GatewayServices } from '../wiring/gateway-wiring.ts'
import type { Services } from '../wiring/services.ts'
import { RadioUpkeepService } from '../../lib/radio/upkeep.ts'

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
  gateway: GatewayServices['gateway']
  /** What HTTPS serves (GET /api/v2/gateway/tls). */
  tlsStatus: GatewayServices['tlsStatus']
  capabilities: GatewayServices['capabilities']
  cloud: GatewayServices['cloud']
  check: GatewayServices['check']
  pairing: GatewayServices['pairing']
  /** The repeater inventory; refresh() pings through the radio without handing it out. */
  repeaters: { list(): ReturnType<GatewayServices['repeaters']['list']>; refresh(): ReturnType<GatewayServices['repeaters']['refresh']>; clear(): ReturnType<GatewayServices['repeaters']['clear']> }
  clock: Pick<Clock, 'now'>
  /** Setting the gateway's clock from a board (POST /api/v2/gateway/clock); none for a test's hand-moved clock. */
  clockWatch: Pick<ClockWatch, 'setFromBoard' | 'state'> | undefined
  /** The Zigbee network's devices, interviews, removals and map; the channel-move rule. */
  radioUpkeep: RadioUpkeepService
}

export function functionServices(s: Services): FunctionServices {
  const { repeaters, radio, clock, history, button } = s
  return {
    orders: s.orders,
    activeList: s.activeList,
    history: { get: (uuid) => history.get(uuid), statistics: (options) => history.statistics(options), hourly: (options) => history.hourly(options) },
    historyPages: s.historyPages,
    tokens: s.tokens,
    screens: s.screens,
    button: { isOpen: () => button.isOpen() },
    settings: s.settings,
    floor: s.floor,
    webhooks: s.webhooks,
    identity: s.identity,
    trackers: s.trackers,
    simulator: s.simulator,
    gateway: s.gateway,
    tlsStatus: s.tlsStatus,
    capabilities: s.capabilities,
    cloud: s.cloud,
    check: s.check,
    pairing: s.pairing,
    repeaters: { list: () => repeaters.list(), refresh: () => repeaters.refresh(radio), clear: () => repeaters.clear() },
    clock: { now: () => clock.now() },
    clockWatch: s.clockWatch && { setFromBoard: (time, by) => s.clockWatch!.setFromBoard(time, by), state: () => s.clockWatch!.state() },
    radioUpkeep: new RadioUpkeepService(radio),
  }
}
