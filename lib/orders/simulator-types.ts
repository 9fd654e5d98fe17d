// What the simulator's routes show (lib/orders/simulator.ts): the trackers with their orders,
// an action's result. Data only, so the function contract can name them without loading the
// simulator.
import type { SimStatus, SimTrackerStatus } from '../radio/simulated-types.ts'
import type { ActiveOrder } from './types.ts'

export interface SimTrackerView extends SimTrackerStatus {
  /** The active order this tracker is bound to. */
  order: { uuid: string; name: number; state: ActiveOrder['state'] } | null
}

export interface SimulatorStatus extends Omit<SimStatus, 'trackers'> {
  trackers: SimTrackerView[]
}

export interface SimActionResult {
  tracker: SimTrackerView
  /** The order bound to the tracker after the action (null after a clear). */
  order: ActiveOrder | null
  /** The order a clear sent to history (null when the tracker had none). */
  cleared?: ActiveOrder | null
}
