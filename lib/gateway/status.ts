// gatewayStatus (GET /api/v2/gateway): host figures, identity, the gateway's timezone (read
// at every call, so a settings change shows at once) and the radio's EUI-64 and channel.
import type { Clock } from '../kernel/clock.ts'
import { unwatchedClockState, type ClockState } from '../kernel/clock-watch.ts'
import type { GatewayIdentity } from '../identity.ts'
import type { FleetStatus } from '../fleet/bridge.ts'
import type { RadioInfo } from '../radio/radio.ts'
import { formatLocal, formatOffset } from '../kernel/time.ts'
import type { CloudStatus } from './cloud.ts'
import type { HostMonitor } from './host.ts'
import type { TlsStatus } from './tls-status.ts'
import { processMemory } from './process-memory.ts'
import type { BackupStatusView } from '../backup/record.ts'
import type { GatewayStatus } from './types.ts'
import type { UpgradeSummary } from '../release/summary.ts'
export type { GatewayStatus } from './types.ts'

export const gatewayProduct = 'Tracker Gateway'

export interface StatusDeps {
  clock: Clock
  host: HostMonitor
  identity: GatewayIdentity
  timezone(): string
  radioInfo(): Promise<RadioInfo>
  cloud(): CloudStatus
  fleet(): FleetStatus
  clockState?: () => ClockState
  backup?(): BackupStatusView
  tls?(): TlsStatus | null
  upgrade?(): UpgradeSummary | null
}

export class GatewayStatusService {
  readonly #deps: StatusDeps

  constructor(deps: StatusDeps) {
    this.#deps = deps
  }

  async status(): Promise<GatewayStatus> {
    const { clock, host, identity } = this.#deps
    const now = clock.now()
    const zone = this.#deps.timezone()
    const figures = host.figures()
    const radio = await this.#deps.radioInfo()
    const cloud = this.#deps.cloud()
    return {
      freeMemory: figures.freeMemory,
      totalMemory: figures.totalMemory,
      usedMemory: figures.usedMemory,
      gatewayPlatform: figures.platform,
      gatewayProduct,
      deviceId: identity.deviceId,
      utcOffset: formatOffset(now, zone),
      timezone: zone,
      cpuTemp: figures.cpuTemp,
      cpuUtilization: figures.cpuUtilization,
      zigbeeEui64: radio.eui64,
      zigbeeChannel: radio.channel,
      cloudAccountName: cloud.accountName,
      cloudLocationName: cloud.locationName,
      uptime: figures.uptime,
      appBundleVersion: identity.version,
      currentTime: formatLocal(now, zone),
      radioUp: radio.up,
      radioKind: radio.kind,
      radioProcess: radio.supervision
        ? {
            lastError: radio.supervision.lastError,
            restarts: radio.supervision.restarts,
            nextAttemptAt: radio.supervision.nextAttemptAt,
            rss: radio.supervision.rss,
          }
        : null,
      fleet: this.#deps.fleet(),
      memory: processMemory(),
      clock: this.#deps.clockState?.() ?? unwatchedClockState,
      backup: this.#deps.backup?.() ?? null,
      coordinator: radio.coordinator ?? null,
      tls: this.#deps.tls?.() ?? null,
      upgrade: this.#deps.upgrade?.() ?? null,
    }
  }
}
