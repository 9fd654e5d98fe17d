// The fleet bridge as a service: when `fleet.enabled`, every recorded order change is turned
// into its MQTT messages and written to the fleet outbox before the change is acknowledged
// (a durable ChangeLog sink); the bridge publishes the outbox once start() connects it.
// Disabled, it records nothing and reports state 'disabled'.
import type { Clock } from '../kernel/clock.ts'
import type { GatewayIdentity } from '../identity.ts'
import type { Logger } from '../kernel/log.ts'
import type { OrderChange, OrderSummary } from '../orders/types.ts'
import type { UpgradeSummary } from '../release/summary.ts'
import type { Durability, Store } from '../store/db.ts'
// The bridge (and with it the mqtt package) is loaded only when the fleet is enabled.
import type { FleetBridge, FleetStatus } from './bridge.ts'
import type { FleetConfig, FleetTopics } from './config.ts'
import { fleetMessages } from './messages.ts'
import { FleetOutbox, type FleetOutboxEntry } from './outbox.ts'
import { FleetReplayer, ReplayBudget } from './replay.ts'

export interface FleetDeps {
  config: FleetConfig
  store: Store
  identity: GatewayIdentity
  clock: Clock
  log: Logger
  timezone: () => string
  /** The site's target time to table in seconds (its settings' targetTimeDefault); HQ judges lateness by it. */
  targetSeconds?: () => number
  storedSummary?: (uuid: string) => OrderSummary | undefined
  /** The last upgrade of this box (null: none), reported so HQ sees a failed one and why. */
  upgrade?: () => UpgradeSummary | null
  /** Changes per publish round trip (tests make it small). */
  batchSize?: number
}

/** The rollout agent as the fleet sees it: it takes HQ's commands and reports where the site is. */
export interface FleetRolloutAgent {
  handle(payload: Buffer): void
  report(): Record<string, unknown> | null
  /** The broker connection was lost: HQ may have said something else since (it is said again at the reconnection). */
  disconnected?(): void
}

/** The gateway's radio as the status message reports it (wired once the radio exists). */
export interface FleetRadioSource {
  kind: 'simulated' | 'zigbee'
  up: () => boolean
}

export class FleetService {
  readonly siteId: string
  readonly #bridge: FleetBridge | null
  readonly #outbox: FleetOutbox | null
  readonly #deps: FleetDeps
  #radio: FleetRadioSource | null = null
  #rollout: FleetRolloutAgent | null = null

  private constructor(deps: FleetDeps, siteId: string, outbox: FleetOutbox | null, bridge: FleetBridge | null) {
    this.#deps = deps
    this.siteId = siteId
    this.#outbox = outbox
    this.#bridge = bridge
  }

  static async open(deps: FleetDeps): Promise<FleetService> {
    const siteId = deps.config.siteId ?? deps.identity.deviceId
    if (!deps.config.enabled) return new FleetService(deps, siteId, null, null)
    const outbox = await FleetOutbox.open(
      await deps.store.collection<FleetOutboxEntry>('fleet-outbox', [{ fieldName: 'seq', unique: true }]),
      await deps.store.collection('fleet-cursor'),
      deps.config.replayWindow,
    )
    let service: FleetService | undefined
    const { FleetBridge } = await import('./bridge.ts')
    const bridge = new FleetBridge({
      config: deps.config,
      siteId,
      outbox,
      clock: deps.clock,
      log: deps.log,
      batchSize: deps.batchSize,
      replayer: deps.config.replayWindow > 0 ? new FleetReplayer(outbox, new ReplayBudget(deps.config.replayPerMinute, deps.clock)) : undefined,
      statusPayload: (online, reason) => service!.#statusPayload(online, reason),
      onRollout: deps.config.rollout.enabled ? (payload) => service!.#rollout?.handle(payload) : undefined,
      onDisconnected: () => service!.#rollout?.disconnected?.(),
    })
    service = new FleetService(deps, siteId, outbox, bridge)
    return service
  }

  get enabled(): boolean {
    return this.#bridge !== null
  }

  get topics(): FleetTopics | null {
    return this.#bridge?.topics ?? null
  }

  status(): FleetStatus {
    if (!this.#bridge) return { state: 'disabled', backlog: 0, lastError: null, lastPublishedSeq: null }
    return this.#bridge.status()
  }

  /** Connects to the broker (and keeps reconnecting); a no-op when disabled. */
  start(): void {
    this.#bridge?.start()
  }

  async stop(): Promise<void> {
    await this.#bridge?.stop()
  }

  /** The radio the status message reports on, from now on. */
  reportRadio(radio: FleetRadioSource): void {
    this.#radio = radio
  }

  /** Who handles headquarters' rollout commands and says where the site is (runtime/workers/rollout.ts), from now on. */
  attachRollout(agent: FleetRolloutAgent): void {
    this.#rollout = agent
  }

  /** Something the status message says changed (the radio went up or down): publish it now. */
  statusChanged(): void {
    this.#bridge?.statusChanged()
  }

  /**
   * The change log's sink for the fleet (wired in runtime/wiring/services.ts with the others): the
   * change's messages join the outbox, durable as the recording operation says.
   */
  readonly sink = async (change: OrderChange, durability: Durability): Promise<void> => {
    if (!this.#outbox) return
    const messages = fleetMessages(change, {
      siteId: this.siteId,
      timezone: this.#deps.timezone(),
      storedSummary: this.#deps.storedSummary,
      prevSeq: this.#outbox.lastRendered,
    })
    if (await this.#outbox.add({ seq: change.seq, messages }, durability)) this.#bridge!.notify()
  }

  /** Only a box that has been upgraded says so: the status of every other stays as it was. */
  #upgradeField(): { upgrade?: UpgradeSummary } {
    const upgrade = this.#deps.upgrade?.()
    return upgrade ? { upgrade } : {}
  }

  #rolloutField(): { rollout?: Record<string, unknown> } {
    const rollout = this.#rollout?.report()
    return rollout ? { rollout } : {}
  }

  #statusPayload(online: boolean, reason?: string): Record<string, unknown> {
    const { identity, clock } = this.#deps
    const status = this.status()
    const radio = this.#radio
    return {
      siteId: this.siteId,
      online,
      ...(reason ? { reason } : {}),
      // Only a site that is online vouches for its radio: the offline messages (the last will
      // is written at connection time) would report a state that may no longer hold.
      ...(radio && online ? { radioUp: radio.up() } : {}),
      ...(radio ? { radioKind: radio.kind } : {}),
      deviceId: identity.deviceId,
      version: identity.version,
      startedAt: new Date(identity.startedAt).toISOString(),
      at: new Date(clock.now()).toISOString(),
      backlog: status.backlog,
      lastPublishedSeq: status.lastPublishedSeq,
      // Every change published with a seq above this can still be replayed (docs/fleet.md).
      replayAfter: this.#outbox?.replayAfter ?? 0,
      // The site's own day and target, so HQ needs no table of zones nor a target of its own.
      timezone: this.#deps.timezone(),
      ...(this.#deps.targetSeconds ? { targetSeconds: this.#deps.targetSeconds() } : {}),
      ...this.#upgradeField(),
      // Only while online, as the radio: the last will, written at connection time, would
      // carry a step the rollout has since left (HQ keeps the last one it heard).
      ...(online ? this.#rolloutField() : {}),
    }
  }
}
