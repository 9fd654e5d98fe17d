// The simulated restaurant as a service: the board (HTTP) and `gateway sim ...` (control
// socket) drive trackers through it. Each action answers once the orders service has
// processed what the radio reported, so the caller sees the resulting order at once.
import { DomainError } from '../errors.ts'
import { SimulatedRadio, type SimStatus, type SimTrackerStatus } from '../radio/simulated.ts'
import type { Radio } from '../radio/radio.ts'
import type { OrdersService } from './service.ts'
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
}

export class SimulatorService {
  readonly #radio: Radio
  readonly #orders: OrdersService

  constructor(deps: { radio: Radio; orders: OrdersService }) {
    this.#radio = deps.radio
    this.#orders = deps.orders
  }

  get available(): boolean {
    return this.#radio instanceof SimulatedRadio
  }

  status(): SimulatorStatus {
    const radio = this.#sim()
    const status = radio.status()
    return { ...status, trackers: status.trackers.map((t) => this.#view(t)) }
  }

  async start(tracker: number, options: { toGo?: boolean } = {}): Promise<SimActionResult> {
    return this.#settle(this.#sim().startTracker(tracker, options))
  }

  async place(tracker: number, table: number): Promise<SimActionResult> {
    return this.#settle(this.#sim().placeTracker(tracker, table))
  }

  async clear(tracker: number): Promise<SimActionResult> {
    return this.#settle(this.#sim().clearTracker(tracker))
  }

  #sim(): SimulatedRadio {
    // Outside simulation these routes do not exist.
    if (!(this.#radio instanceof SimulatedRadio)) throw new DomainError('ROUTE_NOT_FOUND')
    return this.#radio
  }

  async #settle(status: SimTrackerStatus): Promise<SimActionResult> {
    await this.#orders.idle()
    const order = this.#orders.list().find((o) => o.tracker === status.address) ?? null
    return { tracker: this.#view(this.#sim().status().trackers.find((t) => t.number === status.number) ?? status), order }
  }

  #view(tracker: SimTrackerStatus): SimTrackerView {
    const order = this.#orders.list().find((o) => o.tracker === tracker.address)
    return { ...tracker, order: order ? { uuid: order.uuid, name: order.name, state: order.state } : null }
  }
}
