// What a function may call: the domain services, never the store, the radio, the change log
// or the event bus. Each service is written here as the methods functions use, typed by the
// shapes the domains keep in their types files (data only), so this file and
// function-types.ts are the whole contract a function file is written against: they load no
// service and nothing of runtime/wiring/ (tests/architecture/function-contract.test.ts
// measures how far their imports reach). The type is the rule (ctx.services.store does not
// compile, see tests/runtime/host/function-services.test.ts) and so is the object:
// functionServices() (runtime/wiring/services-for-functions.ts) copies only these, once per
// router, and tsc checks there that each running service offers what is written here.
// A new function that needs another service or method adds it here and there (a line each).
import type { ClockState } from '../../lib/kernel/clock-state.ts'
import type { Capabilities, PresentedList, PresentedPage } from '../../lib/api/wire-types.ts'
import type { HistoryFilter, PageRequest, StatisticsRequest, DailyStatistics, HourlyRequest, HourlyStatistics } from '../../lib/history/types.ts'
import type { ActiveOrder, CreateInput, OrderRef, OrderResult, OrderSummary } from '../../lib/orders/types.ts'
import type { SimActionResult, SimulatorStatus } from '../../lib/orders/simulator-types.ts'
import type { TrackerRecord, RepeaterView } from '../../lib/inventory/types.ts'
import type { FloorPlan, ScreenSettings, Settings } from '../../lib/settings/types.ts'
import type { Scope } from '../../lib/tokens/scopes.ts'
import type { IssuedToken, PairingPoll, PairingRequest, TokenRecord } from '../../lib/tokens/types.ts'
import type { PublicJwk, RegisteringWho, WebhookStatus } from '../../lib/webhooks/types.ts'
import type { CheckReport, CloudStatus, GatewayStatus } from '../../lib/gateway/types.ts'
import type { TlsStatus } from '../../lib/gateway/tls-status.ts'
import type { InterviewResult, NetworkMap, RadioDevice } from '../../lib/radio/upkeep-types.ts'
import type { PairingState } from '../workers/pairing-state.ts'

/** The active orders (lib/orders/service.ts): every change through the one state machine. */
export interface FunctionOrders {
  get(ref: OrderRef): ActiveOrder
  create(input: CreateInput): Promise<OrderResult>
  clear(ref: OrderRef): Promise<ActiveOrder>
  clearAll(): Promise<ActiveOrder[]>
  page(ref: OrderRef, tracking: boolean): Promise<ActiveOrder>
  cancelPage(ref: OrderRef): Promise<OrderResult>
  pagingStatus(ref: OrderRef): { paged: boolean }
}

/** Access tokens (lib/tokens/service.ts). */
export interface FunctionTokens {
  issue(name: string, scope?: Scope, secret?: string): Promise<IssuedToken>
  /** Only while the gateway's button window is open (-3 otherwise). */
  issueWithButton(name: string, scope?: Scope): Promise<IssuedToken>
  get(id: string): TokenRecord | null
  list(): TokenRecord[]
  revoke(id: string): Promise<boolean>
  revokeByName(name: string): Promise<number>
}

/** Screens signing in with a code an already signed-in screen approves (lib/tokens/screen-pairing.ts). */
export interface FunctionScreens {
  request(ip: string, name: string | undefined, replaces?: string): PairingRequest
  poll(id: string): Promise<PairingPoll>
  approve(
    code: string,
    approver: { name: string; scope: Scope },
    ip: string,
    options?: { name?: string; scope?: Scope },
  ): { name: string; prefix: string; scope: Scope }
}

/** Webhook registrations (lib/webhooks/service.ts); `value` is the URL as sent, checked there. */
export interface FunctionWebhooks {
  register(value: unknown, version: 'v1' | 'v2', who?: RegisteringWho): Promise<{ url: string; secret?: string; created: boolean }>
  unregister(value: unknown, owner?: string): Promise<void>
  list(owner?: string): WebhookStatus[]
  jwks(): Promise<{ keys: PublicJwk[] }>
}

/** The simulated restaurant's controls (lib/orders/simulator.ts). */
export interface FunctionSimulator {
  status(): SimulatorStatus
  start(tracker: number, options?: { toGo?: boolean }): Promise<SimActionResult>
  place(tracker: number, table: number): Promise<SimActionResult>
  clear(tracker: number): Promise<SimActionResult>
}

/** Each named screen's own settings (lib/settings/screen-settings.ts); `input` is checked there. */
export interface FunctionScreenSettings {
  get(name: string): ScreenSettings
  list(): { name: string; settings: ScreenSettings }[]
  update(name: string, input: unknown, options?: { onlyMissing?: boolean }): Promise<ScreenSettings>
}

/** The Zigbee network's upkeep (lib/radio/upkeep.ts), with the API's error kinds. */
export interface FunctionRadioUpkeep {
  devices(): Promise<RadioDevice[]>
  interview(address: string): Promise<InterviewResult>
  remove(address: string, force: boolean): Promise<{ left: boolean }>
  networkMap(): Promise<NetworkMap>
  /** Why a channel move needs force now (paired devices would be left behind), or undefined. */
  channelMoveRefusal(): Promise<string | undefined>
}

export interface FunctionServices {
  orders: FunctionOrders
  /** The active orders presented once per version and kept until they change. */
  activeList: { presented(version: 'v1' | 'v2'): PresentedList }
  /** Summaries by UUID, the statistics and the hour-by-hour figures: reads only. */
  history: {
    get(uuid: string): OrderSummary | undefined
    statistics(request: StatisticsRequest): DailyStatistics
    hourly(request: HourlyRequest): HourlyStatistics
  }
  historyPages: { presented(filter: HistoryFilter, page: PageRequest, timezone: string): PresentedPage }
  tokens: FunctionTokens
  screens: FunctionScreens
  /** Whether the token window is open (pressing is the button's, not an endpoint's). */
  button: { isOpen(): boolean }
  /** The settings; `timezone` is the one in force (the configured zone, or the system's). */
  settings: { get(): Settings; update(changes: Record<string, unknown>): Promise<Settings>; readonly timezone: string }
  floor: { get(): FloorPlan; update(input: unknown): Promise<FloorPlan> }
  screenSettings: FunctionScreenSettings
  webhooks: FunctionWebhooks
  identity: { readonly deviceId: string }
  trackers: { list(): TrackerRecord[]; clearUnbound(): Promise<number> }
  simulator: FunctionSimulator
  gateway: { status(): Promise<GatewayStatus> }
  /** What HTTPS serves (GET /api/v2/gateway/tls). */
  tlsStatus: { get(): TlsStatus | null }
  capabilities: Capabilities
  cloud: { probe(): Promise<CloudStatus>; activate(deviceCode: unknown): Promise<{ alreadyActivated: boolean; status: CloudStatus }> }
  check: { run(timeoutSeconds: number): Promise<CheckReport> }
  /** The repeater pairing window (runtime/workers/pairing.ts). */
  pairing: { begin(seconds: number): Promise<PairingState>; end(): Promise<PairingState> }
  /** The repeater inventory; refresh() pings through the radio without handing it out. */
  repeaters: { list(): RepeaterView[]; refresh(): Promise<RepeaterView[]>; clear(): Promise<number> }
  clock: { now(): number }
  /** Setting the gateway's clock from a board (POST /api/v2/gateway/clock); none for a test's hand-moved clock. */
  clockWatch: { setFromBoard(timeMs: number, by: string | null): Promise<{ shiftMs: number }>; state(): ClockState } | undefined
  radioUpkeep: FunctionRadioUpkeep
  /** The Prometheus figures (GET /api/v2/metrics). */
  metrics: { exposition(): Promise<string> }
}
