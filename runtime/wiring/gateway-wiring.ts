// Builds the gateway side of the services: host status, cloud activation, connection check,
// repeater inventory (fed by the radio's device events: subscriptions.ts) and the pairing
// scheduler.
// Called by buildServices(), so tests get the same wiring as a real gateway.
import type { Clock } from '../../lib/kernel/clock.ts'
import type { GatewayConfig } from '../../lib/config.ts'
import { capabilities, type Capabilities } from '../../lib/api/capabilities.ts'
import type { FleetStatus } from '../../lib/fleet/bridge.ts'
import { ConnectionCheck } from '../../lib/gateway/check.ts'
import { CloudActivation, type CloudRecord } from '../../lib/gateway/cloud.ts'
import { HostMonitor, type HostSource } from '../../lib/gateway/host.ts'
import { RepeaterInventory, type RepeaterRecord } from '../../lib/inventory/repeaters.ts'
import { GatewayStatusService } from '../../lib/gateway/status.ts'
import { TlsStatusHolder } from '../../lib/gateway/tls-status.ts'
import type { GatewayIdentity } from '../../lib/identity.ts'
import type { ClockState } from '../../lib/kernel/clock-watch.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { Radio } from '../../lib/radio/radio.ts'
import type { SettingsService } from '../../lib/settings/service.ts'
import type { Store } from '../../lib/store/db.ts'
import { PairingScheduler } from '../workers/pairing.ts'
import { BackupRecord } from '../../lib/backup/record.ts'
import { radioUpFlag } from './subscriptions.ts'
import { lastUpgrade } from '../upgrade/summary.ts'

export interface GatewayServices {
  gateway: GatewayStatusService
  capabilities: Capabilities
  cloud: CloudActivation
  check: ConnectionCheck
  repeaters: RepeaterInventory
  pairing: PairingScheduler
  /** The last backup's result and the schedule (runtime/backup/, GET /api/v2/gateway `backup`). */
  backupRecord: BackupRecord
  /** What HTTPS serves (set by runtime/host/tls/tls-service.ts; null when off). */
  tlsStatus: TlsStatusHolder
}

export interface GatewayServicesDeps {
  config: GatewayConfig
  clock: Clock
  log: Logger
  store: Store
  identity: GatewayIdentity
  settings: SettingsService
  radio: Radio
  /** The fleet bridge's status, reported in gatewayStatus. */
  fleetStatus(): FleetStatus
  /** The clock watch's state, reported in gatewayStatus. */
  clockState?: () => ClockState
  host?: HostSource
  fetch?: typeof fetch
}

export async function buildGatewayServices(deps: GatewayServicesDeps): Promise<GatewayServices> {
  const { config, clock, log, store, identity, settings, radio } = deps
  const radioUp = radioUpFlag(radio)

  const cloud = await CloudActivation.open({
    url: config.cloud.url,
    collection: await store.collection<CloudRecord>('cloud'),
    clock,
    log,
    deviceId: identity.deviceId,
    version: identity.version,
    fetch: deps.fetch,
  })
  const backupRecord = await BackupRecord.open(await store.collection('backup-status'), clock, config.backup)
  const host = new HostMonitor(deps.host)
  const tlsStatus = new TlsStatusHolder()
  const gateway = new GatewayStatusService({
    clock,
    host,
    identity,
    timezone: () => settings.timezone,
    radioInfo: () => radio.info(),
    cloud: () => cloud.status(),
    fleet: deps.fleetStatus,
    clockState: deps.clockState,
    backup: () => backupRecord.view(settings.timezone),
    tls: () => tlsStatus.get(),
    upgrade: () => lastUpgrade(),
  })
  const check = new ConnectionCheck({
    clock,
    radioInfo: () => radio.info(),
    collection: await store.collection('health'),
    cloudActivated: () => cloud.status().activated,
    probeCloud: (ms) => cloud.probe(ms),
  })
  const repeaters = await RepeaterInventory.open({
    collection: await store.collection<RepeaterRecord>('repeaters'),
    clock,
    log,
    radioUp,
    timezone: () => settings.timezone,
  })
  const pairing = new PairingScheduler({ radio, clock, log })
  return { gateway, capabilities: capabilities(config, identity.version), cloud, check, repeaters, pairing, backupRecord, tlsStatus }
}
