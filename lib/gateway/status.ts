// gatewayStatus (GET /api/v2/gateway): host figures, identity, the gateway's timezone (read
// at every call, so a settings change shows at once) and the radio's EUI-64 and channel.
import type { Clock } from '../kernel/clock.ts'
import { unwatchedClockState, type ClockState } from '../kernel/clock-watch.ts'
import type { GatewayIdentity } from '../identity.ts'
import type { FleetStatus } from '../fleet/bridge.ts'
import type { RadioInfo } from '../radio/radio.ts'
import type { CoordinatorInfo } from '../radio/coordinator.ts'
import { formatLocal, formatOffset } from '../kernel/time.ts'
import type { CloudStatus } from './cloud.ts'
import type { HostMonitor } from './host.ts'
import type { TlsStatus } from './tls-status.ts'
import { processMemory, type ProcessMemory } from './process-memory.ts'
import type { BackupStatusView } from '../backup/record.ts'
import type { UpgradeSummary } from '../release/summary.ts'

export const gatewayProduct = 'Tracker Gateway'

export interface GatewayStatus {
  freeMemory: number
  totalMemory: number
  usedMemory: number
  gatewayPlatform: string
  gatewayProduct: string
  deviceId: string
  utcOffset: string
  timezone: string
  cpuTemp: number
  cpuUtilization: number
  zigbeeEui64: string
  zigbeeChannel: number
  cloudAccountName: string | null
  cloudLocationName: string | null
  uptime: number
  appBundleVersion: string
  currentTime: string
  /** Extension: whether the radio is connected right now. */
  radioUp: boolean
  /** Extension: 'simulated' or 'zigbee'. */
  radioKind: string
  /**
   * Extension: the Zigbee radio process (null for the simulated radio): why the radio last
   * went down, how often it was restarted, when the next start is due (ms since the epoch),
   * its resident memory in bytes.
   */
  radioProcess: { lastError: string | null; restarts: number; nextAttemptAt: number | null; rss: number | null } | null
  /** Extension: the fleet bridge's state and backlog (state 'disabled' when off). */
  fleet: FleetStatus
  /** Extension: the gateway process's memory in bytes (rss, heap used/total/limit, external). */
  memory: ProcessMemory
  /**
   * Extension: whether the system clock is synchronised (null: the system cannot tell), who
   * said so, the last clock step mended, when a board last set the time, and whether
   * webhook deliveries wait for the clock (lib/kernel/clock-watch.ts).
   */
  clock: ClockState
  /** Extension: scheduled backups and the last result (docs/api.md, Backups); null where none are kept (tests). */
  backup: BackupStatusView | null
  /**
   * Extension: the Zigbee coordinator stick as last seen (type, firmware, IEEE address, how
   * the last start found the network, its coordinator backup); null until it answered and
   * for the simulated radio.
   */
  coordinator: CoordinatorInfo | null
  /** Extension: the HTTPS port and its certificate's fingerprints (null when HTTPS is off). */
  tls: TlsStatus | null
  /** Extension: the last `gateway upgrade` or rollback and how it ended (null: none on this box). */
  upgrade: UpgradeSummary | null
}

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
