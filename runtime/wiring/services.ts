// The services every function and runtime part reaches through one object. Built once by
// buildServices(): by runtime/wiring/main.ts for a real gateway, by tests/helpers for tests.
import type { Clock } from '../../lib/kernel/clock.ts'
import type { GatewayConfig } from '../../lib/config.ts'
import path from 'node:path'
import { ChangeLog } from '../../lib/changes/change-log.ts'
import { FleetService } from '../../lib/fleet/service.ts'
import { HistoryPages } from '../../lib/api/history-pages.ts'
import { HistoryStore } from '../../lib/history/store.ts'
import { ActiveOrderList } from '../../lib/api/active-list.ts'
import { loadIdentity, type GatewayIdentity } from '../../lib/identity.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { FloorService } from '../../lib/settings/floor.ts'
import { ScreenSettingsService } from '../../lib/settings/screen-settings.ts'
import { SettingsService } from '../../lib/settings/service.ts'
import { defaultZigbeePreset } from './zigbee-preset.ts'
import type { RadioDeps } from '../../lib/radio/create.ts'
import type { Radio } from '../../lib/radio/radio.ts'
import { Store } from '../../lib/store/db.ts'
import { ButtonWindow } from '../../lib/tokens/button.ts'
import { TokenService, type TokenDoc } from '../../lib/tokens/service.ts'
import { ScreenPairing } from '../../lib/tokens/screen-pairing.ts'
import { WebhookService } from '../../lib/webhooks/service.ts'
import { buildGatewayServices, type GatewayServices } from './gateway-wiring.ts'
import { buildOrderServices, type OrderServices } from './orders-wiring.ts'
import { buildClockWatch } from './clock-wiring.ts'
import { unwatchedClockState, type ClockWatch } from '../../lib/kernel/clock-watch.ts'
import { ClockRuns } from '../../lib/kernel/clock-runs.ts'
import { fleetFollowsRadio, followRadio, presetChannel } from './subscriptions.ts'
import type { FaultHook } from '../../lib/orders/fault.ts'
import { DurationHistograms, PairCounts } from '../../lib/kernel/metrics-text.ts'
import { GatewayMetrics } from './gateway-metrics.ts'
import { lastUpgrade } from '../upgrade/summary.ts'

/** orders, radio, trackers (inventory) and paging (scheduler) come from OrderServices. */
export interface Services extends OrderServices, GatewayServices {
  config: GatewayConfig
  clock: Clock
  log: Logger
  store: Store
  identity: GatewayIdentity
  settings: SettingsService
  /** The floor plan the board draws (extension: /api/v2/floor). */
  floor: FloorService
  /** Each named screen's own settings (extension: /api/v2/board/settings). */
  screenSettings: ScreenSettingsService
  button: ButtonWindow
  tokens: TokenService
  /** Screens waiting to be signed in with a code (memory only). */
  screens: ScreenPairing
  history: HistoryStore
  changes: ChangeLog
  /** The MQTT fleet bridge; always present, status().state 'disabled' when off. */
  fleet: FleetService
  /** Webhook registrations, outbox (a ChangeLog sink) and delivery attempts. */
  webhooks: WebhookService
  /** The active-order list as the list routes answer it, cached while it cannot differ. */
  activeList: ActiveOrderList
  historyPages: HistoryPages
  /** Clock steps and synchronisation (clock-wiring.ts); none for a test's hand-moved clock. */
  clockWatch: ClockWatch | undefined
  /** HTTP requests answered, by "METHOD route" and status (counted by runtime/host/router.ts). */
  requests: PairCounts
  /** How long they took to answer, by "METHOD route" (observed by runtime/host/router.ts). */
  requestDurations: DurationHistograms
  /** What GET /api/v2/metrics serves (gateway-metrics.ts). */
  metrics: GatewayMetrics
}

export interface BuildOptions {
  config: GatewayConfig
  clock: Clock
  log: Logger
  /** Keep every collection in memory (tests); otherwise files under config.dataDir. */
  inMemory?: boolean
  /** New order UUIDs (default crypto.randomUUID); see OrderServicesDeps. */
  newUuid?: () => string
  /** Further Zigbee radio options (tests: flags for the radio process). */
  zigbee?: RadioDeps['zigbee']
  /** A radio built by the caller instead of the one the config names (tests). */
  radio?: Radio
  /** Crash points for tests (see OrderServicesDeps). */
  fault?: FaultHook
}

export async function buildServices(options: BuildOptions): Promise<Services> {
  const { config, clock, log } = options
  const store = new Store({
    dataDir: options.inMemory ? undefined : config.dataDir,
    syncIntervalMs: config.storage.syncIntervalMs,
    compactAfterLines: config.storage.compactAfterLines,
    log,
  })
  const identity = await loadIdentity(await store.collection('identity'), clock.now(), config.deviceId)
  // A Zigbee network formed before the default preset moved off channel 11 stays where it is.
  const settings = await SettingsService.open(await store.collection('settings'), { defaultPreset: defaultZigbeePreset(config.dataDir), log })
  const floor = await FloorService.open(await store.collection('floor'))
  const screenSettings = await ScreenSettingsService.open(await store.collection('screen-settings'), log)
  const button = new ButtonWindow(clock)
  const tokens = await TokenService.open({
    collection: await store.collection<TokenDoc>('tokens'),
    clock,
    log,
    button,
    authFailuresPerMinute: config.security.authFailuresPerMinute,
  })
  const screens = new ScreenPairing({ clock, tokens, log })
  const history = new HistoryStore(options.inMemory ? ':memory:' : path.join(config.dataDir, 'history.sqlite'), {
    synchronous: config.storage.historySynchronous,
  })
  const fleet = await FleetService.open({
    config: config.fleet,
    store,
    identity,
    clock,
    log,
    timezone: () => settings.timezone,
    targetSeconds: () => settings.get().targetTimeDefault,
    storedSummary: (uuid) => history.get(uuid),
    upgrade: () => lastUpgrade(),
  })
  // The change log is opened with the webhooks' sink below; until then no URL can register.
  let changes: ChangeLog | undefined
  const webhooks = await WebhookService.open({
    config,
    clock,
    log,
    store,
    deviceId: identity.deviceId,
    timezone: () => settings.timezone,
    lastSeq: () => changes!.lastSeq,
  })
  // Every durable consumer of order changes, in one place, awaited in this order before a
  // change is acknowledged: the fleet outbox (a no-op when no fleet is configured), then the
  // webhook outbox. Live consumers subscribe to changes.on('recorded'): the WebSocket hub
  // while it serves (runtime/host/ws.ts).
  changes = await ChangeLog.open(await store.collection('seq'), clock, { sinks: [fleet.sink, webhooks.sink], log })
  // This run's clock and the high-water mark earlier runs left (docs/api.md, "Clock").
  const clockRuns = ClockRuns.open(options.inMemory ? undefined : path.join(config.dataDir, 'clock-runs.json'), log)
  const orderServices = await buildOrderServices({
    config,
    clock,
    log,
    store,
    history,
    changes,
    zigbee: { ...options.zigbee, channel: presetChannel(settings) },
    radio: options.radio,
    newUuid: options.newUuid,
    fault: options.fault,
    clockRun: clockRuns,
  })
  const gatewayServices = await buildGatewayServices({
    config,
    clock,
    log,
    store,
    identity,
    settings,
    radio: orderServices.radio,
    fleetStatus: () => fleet.status(),
    clockState: () => clockWatch?.state() ?? unwatchedClockState,
  })
  followRadio(orderServices.radio, { orders: orderServices.orders, repeaters: gatewayServices.repeaters })
  fleetFollowsRadio(orderServices.radio, fleet)
  const activeList = new ActiveOrderList({ orders: orderServices.orders, clock, settings })
  const historyPages = new HistoryPages(history, config.storage.historyPageCacheBytes)
  const clockWatch = buildClockWatch({
    config,
    clock,
    log,
    orders: orderServices.orders,
    history,
    historyPages,
    repeaters: gatewayServices.repeaters,
    runs: clockRuns,
  })
  const requests = new PairCounts()
  const requestDurations = new DurationHistograms()
  const metrics = new GatewayMetrics(
    { orders: orderServices.orders, settings, clock, webhooks, radio: orderServices.radio, backupRecord: gatewayServices.backupRecord, clockWatch, fleet },
    requests,
    requestDurations,
  )
  return {
    requests,
    requestDurations,
    metrics,
    config,
    clock,
    log,
    store,
    identity,
    settings,
    floor,
    screenSettings,
    button,
    tokens,
    screens,
    history,
    historyPages,
    changes,
    fleet,
    webhooks,
    activeList,
    clockWatch,
    ...orderServices,
    ...gatewayServices,
  }
}
