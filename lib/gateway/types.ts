// The gateway's own shapes as the API shows them: its status, the cloud activation, the
// connection check. Data only, so the function contract can name them without loading the
// services that gather them.
import type { BackupStatusView } from '../backup/types.ts'
import type { FleetStatus } from '../fleet/types.ts'
import type { ClockState } from '../kernel/clock-state.ts'
import type { CoordinatorInfo } from '../radio/coordinator.ts'
import type { UpgradeSummary } from '../release/summary.ts'
import type { ProcessMemory } from './process-memory.ts'
import type { TlsStatus } from './tls-status.ts'

export type CloudState = 'NOT_CONFIGURED' | 'ACTIVATED' | 'CONNECTED' | 'UNREACHABLE'

export interface CloudStatus {
  state: CloudState
  configured: boolean
  activated: boolean
  accountName: string | null
  locationName: string | null
  activatedAt: number | null
  lastContactAt: number | null
}

export interface CheckItem {
  ok: boolean
  detail: string
}

export interface CheckReport {
  ok: boolean
  timeout: number
  radio: CheckItem & { kind: string }
  storage: CheckItem
  /** null when the gateway is not activated with the cloud service (nothing to check). */
  cloud: (CheckItem & { state: string }) | null
}

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
