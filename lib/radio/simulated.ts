// The default radio: a virtual restaurant. Numbered trackers with radio addresses, tables,
// a dine-in and a to-go starter, a clearer at the pass. Driving it (start, place, clear)
// produces the same events a real radio would, so the whole gateway runs without hardware.
// It honours paging leases: a paged tracker buzzes until its lease ends or it is told to
// stop, which tests (and the board) can observe. Time comes from the injected Clock.
import type { Clock } from '../kernel/clock.ts'
import { monotonicNow } from '../kernel/gateway-clock.ts'
import { EventBus, type Listener, type Unsubscribe } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import { DomainError } from '../kernel/errors.ts'
import type { OrderType } from '../orders/types.ts'
import type { Radio, RadioEvents, RadioInfo } from './radio.ts'
import type { SimPosition, SimTrackerStatus, SimStatus } from './simulated-types.ts'
export type { SimPosition, SimTrackerStatus, SimStatus } from './simulated-types.ts'

export interface SimulatedRadioOptions {
  clock: Clock
  /** How many trackers (numbered from 1). */
  trackers?: number
  /** How many tables (numbered from 1). */
  tables?: number
  /** Repeaters plugged in around the room; each joins a few seconds after pairing opens. */
  repeaters?: number
  /** Where a failing listener is reported. */
  log?: Logger
}

/** Seconds after pairing opens before each simulated repeater (1st, 2nd, ...) joins. */
export const simulatedJoinDelaySeconds = 3

interface SimRepeater {
  extendedAddress: string
  shortAddress: number
  joined: boolean
}

export interface SentCommand {
  command: 'page' | 'cancel'
  address: string
  leaseSeconds?: number
  at: number
}

interface SimTracker {
  number: number
  address: string
  position: SimPosition
  /** When the lease ends, on the monotonic clock (a tracker's own timer: no wall-clock step moves it). */
  buzzingUntil: number | null
}

/** A stable, EUI-64-shaped address per tracker number. */
export function simulatedAddress(number: number): string {
  const hex = number.toString(16).padStart(4, '0')
  return `00:0d:6f:00:00:00:${hex.slice(0, 2)}:${hex.slice(2, 4)}`
}

/** Tables in the simulated restaurant unless a test asks for others (the config sets only its trackers). */
export const simulatedTables = 30

export class SimulatedRadio implements Radio {
  readonly kind = 'simulated' as const
  readonly #clock: Clock
  readonly #trackers = new Map<number, SimTracker>()
  readonly #tables: number
  readonly #events: EventBus<RadioEvents>
  #up = false
  #permitJoinUntil: number | null = null
  readonly #repeaters: SimRepeater[] = []
  /** Every command the gateway sent, in order (for tests). */
  readonly sent: SentCommand[] = []

  constructor(options: SimulatedRadioOptions) {
    this.#clock = options.clock
    this.#tables = options.tables ?? simulatedTables
    this.#events = new EventBus(options.log)
    for (let number = 1; number <= (options.trackers ?? 20); number++) {
      this.#trackers.set(number, { number, address: simulatedAddress(number), position: { at: 'rack' }, buzzingUntil: null })
    }
    for (let i = 1; i <= (options.repeaters ?? 2); i++) {
      this.#repeaters.push({ extendedAddress: `00:0d:6f:00:00:01:00:${i.toString(16).padStart(2, '0')}`, shortAddress: 0x1000 + i, joined: false })
    }
  }

  async start(): Promise<void> {
    this.#up = true
    this.#emit('status', { up: true, detail: 'simulated' })
  }

  async stop(): Promise<void> {
    this.#up = false
    this.#emit('status', { up: false, detail: 'stopped' })
  }

  on<K extends keyof RadioEvents>(event: K, listener: Listener<RadioEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  async page(address: string, leaseSeconds: number): Promise<void> {
    const tracker = this.#byAddress(address)
    this.sent.push({ command: 'page', address, leaseSeconds, at: this.#clock.now() })
    tracker.buzzingUntil = monotonicNow(this.#clock) + leaseSeconds * 1000
  }

  async cancel(address: string): Promise<void> {
    const tracker = this.#byAddress(address)
    this.sent.push({ command: 'cancel', address, at: this.#clock.now() })
    tracker.buzzingUntil = null
  }

  /** Opens joining; repeaters not yet in the network join one by one while it stays open. */
  async permitJoin(seconds: number): Promise<void> {
    this.#permitJoinUntil = seconds > 0 ? this.#clock.now() + seconds * 1000 : null
    if (seconds <= 0) return
    this.#repeaters
      .filter((repeater) => !repeater.joined)
      .forEach((repeater, index) => {
        this.#clock.setTimeout(
          () => {
            if (repeater.joined || !this.#joinOpen()) return
            repeater.joined = true
            this.#announce(repeater)
          },
          (index + 1) * simulatedJoinDelaySeconds * 1000,
        )
      })
  }

  /** Every joined repeater answers a ping (GET /api/v2/repeaters?refresh=true). */
  async refreshRepeaters(): Promise<void> {
    for (const repeater of this.#repeaters) if (repeater.joined) this.#announce(repeater)
  }

  #joinOpen(): boolean {
    return this.#permitJoinUntil !== null && this.#permitJoinUntil > this.#clock.now()
  }

  #announce(repeater: SimRepeater): void {
    this.#emit('repeaterJoined', {
      extendedAddress: repeater.extendedAddress,
      shortAddress: repeater.shortAddress,
      at: this.#clock.now(),
      label: `Simulated repeater ${repeater.shortAddress - 0x1000}`,
      manufacturerId: 0xfff1,
      profileId: 0x0104,
      parentShortAddress: 0,
      firmwareVersion: 'sim-1.0',
      hardwareVersion: 1,
      remainingChildren: 16,
      deviceType: 'Router',
      deviceModel: 'Simulated repeater',
    })
  }

  async info(): Promise<RadioInfo> {
    return {
      kind: 'simulated',
      up: this.#up,
      eui64: '00:0d:6f:ff:fe:00:00:01',
      channel: 15,
      panId: 0x1a62,
      permitJoinUntil: this.#joinOpen() ? this.#permitJoinUntil : null,
    }
  }

  // The restaurant floor.

  /** Holds tracker `number` over the dine-in (or to-go) starter. */
  startTracker(number: number, options: { toGo?: boolean } = {}): SimTrackerStatus {
    const tracker = this.#byNumber(number)
    const orderType: OrderType = options.toGo ? 'TO_GO' : 'ON_PREMISE'
    tracker.position = { at: 'guest', orderType }
    const at = this.#clock.now()
    this.#emit('trackerStarted', { address: tracker.address, number, orderType, at })
    this.#emit('trackerSeen', { address: tracker.address, number, battery: batteryOf(number), linkQuality: linkQualityOf(number), at })
    return this.#status(tracker)
  }

  /** Puts tracker `number` on table `table`; it reports the table's number. */
  placeTracker(number: number, table: number): SimTrackerStatus {
    const tracker = this.#byNumber(number)
    if (!Number.isInteger(table) || table < 1 || table > this.#tables) {
      throw new DomainError('SIM_INPUT_INVALID', `no table ${table} in the simulated restaurant (1-${this.#tables})`)
    }
    tracker.position = { at: 'table', table }
    this.#emit('trackerLocated', { address: tracker.address, table, at: this.#clock.now() })
    return this.#status(tracker)
  }

  /** Holds tracker `number` over the clearer at the pass; it goes back to the rack. */
  clearTracker(number: number): SimTrackerStatus {
    const tracker = this.#byNumber(number)
    tracker.position = { at: 'rack' }
    this.#emit('trackerCleared', { address: tracker.address, at: this.#clock.now() })
    return this.#status(tracker)
  }

  /**
   * Corrects where the simulation thinks tracker `number` is, without a radio event: after a
   * restart, or after its order was cleared from the board, the orders are the truth.
   */
  setPosition(number: number, position: SimPosition): void {
    this.#byNumber(number).position = { ...position }
  }

  isBuzzing(numberOrAddress: number | string): boolean {
    const tracker = typeof numberOrAddress === 'number' ? this.#byNumber(numberOrAddress) : this.#byAddress(numberOrAddress)
    return this.#buzzing(tracker)
  }

  status(): SimStatus {
    return {
      up: this.#up,
      trackers: [...this.#trackers.values()].map((t) => this.#status(t)),
      tables: Array.from({ length: this.#tables }, (_, i) => i + 1),
      starters: [
        { name: 'dine-in', orderType: 'ON_PREMISE' },
        { name: 'to-go', orderType: 'TO_GO' },
      ],
      clearers: ['pass'],
    }
  }

  #buzzing(tracker: SimTracker): boolean {
    return tracker.buzzingUntil !== null && tracker.buzzingUntil > monotonicNow(this.#clock)
  }

  #status(tracker: SimTracker): SimTrackerStatus {
    const buzzing = this.#buzzing(tracker)
    return {
      number: tracker.number,
      address: tracker.address,
      position: { ...tracker.position },
      buzzing,
      buzzingUntil: buzzing ? this.#clock.now() + Math.round(tracker.buzzingUntil! - monotonicNow(this.#clock)) : null,
      battery: batteryOf(tracker.number),
      linkQuality: linkQualityOf(tracker.number),
    }
  }

  #byNumber(number: number): SimTracker {
    const tracker = Number.isInteger(number) ? this.#trackers.get(number) : undefined
    if (!tracker) throw new DomainError('SIM_INPUT_INVALID', `no tracker ${number} in the simulated restaurant (1-${this.#trackers.size})`)
    return tracker
  }

  #byAddress(address: string): SimTracker {
    for (const tracker of this.#trackers.values()) if (tracker.address === address) return tracker
    throw new Error(`no tracker with address ${address} answers`)
  }

  #emit<K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]): void {
    this.#events.emit(event, payload)
  }
}

// Fixed per tracker, so the inventory shows plausible figures without randomness in tests.
const batteryOf = (number: number) => 100 - (number % 7) * 3
const linkQualityOf = (number: number) => 120 + ((number * 37) % 130)
