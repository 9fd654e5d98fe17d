// Builds the order side of the services: the radio, the tracker inventory, the paging
// scheduler and the orders service (which follows the radio's events: subscriptions.ts).
// Called by buildServices(), so tests get the same wiring as a real gateway.
import type { Clock } from '../../lib/kernel/clock.ts'
import type { GatewayConfig } from '../../lib/config.ts'
import type { ChangeLog } from '../../lib/changes/change-log.ts'
import type { HistoryStore } from '../../lib/history/store.ts'
import { TrackerInventory, type TrackerRecord } from '../../lib/inventory/trackers.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import type { FaultHook } from '../../lib/orders/fault.ts'
import { activeOrdersCollection, OrdersService } from '../../lib/orders/service.ts'
import { LunchRush } from '../../lib/orders/rush.ts'
import { SimulatorService } from '../../lib/orders/simulator.ts'
import { createRadio, type RadioDeps } from '../../lib/radio/create.ts'
import type { Radio } from '../../lib/radio/radio.ts'
import type { Store } from '../../lib/store/db.ts'
import { PagingScheduler, type PagingOptions } from '../workers/scheduler.ts'

export interface OrderServices {
  radio: Radio
  trackers: TrackerInventory
  paging: PagingScheduler
  orders: OrdersService
  /** The virtual restaurant's controls (its methods answer -5 when the radio is not simulated). */
  simulator: SimulatorService
  /** A lunch service played on the simulated restaurant (`gateway sim rush`, `--demo`). */
  rush: LunchRush
}

export interface OrderServicesDeps {
  config: GatewayConfig
  clock: Clock
  log: Logger
  store: Store
  history: HistoryStore
  changes: ChangeLog
  /** Crash points (lib/orders/fault.ts): tests inject a hook, production none. */
  fault?: FaultHook
  radio?: Radio
  zigbee?: RadioDeps['zigbee']
  paging?: Partial<PagingOptions>
  /** New order UUIDs (default crypto.randomUUID); tests that compare two gateways make them alike. */
  newUuid?: () => string
  /** This run's clock (lib/kernel/clock-runs.ts), which the orders' times are tagged with. */
  clockRun?: { id: string; right(): boolean }
}

export async function buildOrderServices(deps: OrderServicesDeps): Promise<OrderServices> {
  const { config, clock, log, store } = deps
  const radio = deps.radio ?? createRadio(config, { clock, log, zigbee: deps.zigbee })
  const trackers = await TrackerInventory.open(await store.collection<TrackerRecord>('trackers', [{ fieldName: 'address', unique: true }]))
  let orders: OrdersService | undefined
  const paging = new PagingScheduler({
    radio,
    clock,
    log,
    options: deps.paging,
    onLapse: (tracker) => void orders?.pageLapsed(tracker),
  })
  orders = await OrdersService.open({
    collection: await activeOrdersCollection(store),
    history: deps.history,
    changes: deps.changes,
    trackers,
    pager: paging,
    clock,
    log,
    fault: deps.fault,
    newUuid: deps.newUuid,
    clockRun: deps.clockRun,
  })
  const simulator = new SimulatorService({ radio, orders })
  return { radio, trackers, paging, orders, simulator, rush: new LunchRush({ clock, simulator, orders, log }) }
}
