// The simulated restaurant as a service: the board (HTTP), `gateway sim ...` (control
// socket) and the lunch rush drive trackers through it. Each action answers once the orders
// service has processed what the radio reported, so the caller sees the resulting order at
// once. The orders are the truth about where a tracker is: before every answer the
// simulation is brought in line with them (after a restart, or after a clear on the board),
// and moves that contradict them are refused with a message instead of acted out.
import { DomainError } from '../kernel/errors.ts'
import { SimulatedRadio, type SimPosition, type SimStatus, type SimTrackerStatus } from '../radio/simulated.ts'
import type { Radio } from '../radio/radio.ts'
import type { OrdersService } from './service.ts'
import type { ActiveOrder } from './types.ts'
import type { SimTrackerView, SimulatorStatus, SimActionResult } from './simulator-types.ts'
export type { SimTrackerView, SimulatorStatus, SimActionResult } from './simulator-types.ts'

/** Where a tracker is, judged by its order: on its table, with its guest, or in the rack. */
export function positionOf(order: ActiveOrder | undefined): SimPosition {
  if (!order) return { at: 'rack' }
  if (order.locationName !== null) return { at: 'table', table: order.locationName }
  return { at: 'guest', orderType: order.orderType }
}

const samePosition = (a: SimPosition, b: SimPosition) => JSON.stringify(a) === JSON.stringify(b)

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
    const status = this.#reconciled()
    return { ...status, trackers: status.trackers.map((t) => this.#view(t)) }
  }

  async start(tracker: number, options: { toGo?: boolean } = {}): Promise<SimActionResult> {
    const sim = this.#sim()
    const order = await this.#orderOf(tracker)
    if (order) this.#refuse(`tracker ${tracker} already has order ${order.name} (${order.state}): clear it at the pass first`)
    return this.#settle(sim.startTracker(tracker, options))
  }

  async place(tracker: number, table: number): Promise<SimActionResult> {
    const sim = this.#sim()
    if (!(await this.#orderOf(tracker))) this.#refuse(`tracker ${tracker} has no order: start it on a starter first`)
    return this.#settle(sim.placeTracker(tracker, table))
  }

  async clear(tracker: number): Promise<SimActionResult> {
    const sim = this.#sim()
    const cleared = (await this.#orderOf(tracker)) ?? null
    return { ...(await this.#settle(sim.clearTracker(tracker))), cleared }
  }

  #sim(): SimulatedRadio {
    // Outside simulation these routes do not exist.
    if (!(this.#radio instanceof SimulatedRadio)) throw new DomainError('ROUTE_NOT_FOUND')
    return this.#radio
  }

  #refuse(message: string): never {
    throw new DomainError('SIM_INPUT_INVALID', message)
  }

  /** The order of tracker `number` once earlier events are processed (throws for an unknown number). */
  async #orderOf(number: number): Promise<ActiveOrder | undefined> {
    await this.#orders.idle()
    const { trackers } = this.#reconciled()
    const address = trackers.find((t) => t.number === number)?.address
    if (address === undefined) this.#refuse(`no tracker ${number} in the simulated restaurant (1-${trackers.length})`)
    return this.#orders.list().find((o) => o.tracker === address)
  }

  /** The simulation's status after moving every tracker to where its order says it is. */
  #reconciled(): SimStatus {
    const sim = this.#sim()
    const byTracker = new Map(this.#orders.list().map((o) => [o.tracker, o]))
    for (const tracker of sim.status().trackers) {
      const wanted = positionOf(byTracker.get(tracker.address))
      if (samePosition(tracker.position, wanted)) continue
      sim.setPosition(tracker.number, wanted)
    }
    return sim.status()
  }

  async #settle(status: SimTrackerStatus): Promise<SimActionResult> {
    await this.#orders.idle()
    const order = this.#orders.list().find((o) => o.tracker === status.address) ?? null
    return { tracker: this.#view(this.#reconciled().trackers.find((t) => t.number === status.number) ?? status), order }
  }

  #view(tracker: SimTrackerStatus): SimTrackerView {
    const order = this.#orders.list().find((o) => o.tracker === tracker.address)
    return { ...tracker, order: order ? { uuid: order.uuid, name: order.name, state: order.state } : null }
  }
}
