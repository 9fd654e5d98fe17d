// Simulated restaurants for headquarters' tests and benchmark: each plays orders (created,
// put on a table, cleared) and renders every change with the gateway's own fleet renderer
// (lib/fleet/messages.ts), numbered by its own seq and naming the change before it (prevSeq),
// on the fleet's topics. Publishing is the
// caller's (a real MQTT client), so a test can also drop, repeat or reorder messages.
import { randomUUID } from 'node:crypto'
import { fleetMessages } from '../lib/fleet/messages.ts'
import type { ActiveOrder, ChangeType } from '../lib/orders/types.ts'
import { sampleOrder } from '../tests/helpers/orders.ts'

export interface SiteMessageOut {
  topic: string
  payload: string
  /** The change's seq (status messages: 0). */
  seq: number
}

export class SimulatedSite {
  readonly siteId: string
  readonly prefix: string
  readonly timezone: string
  readonly startedAt: number
  seq = 0
  /** The seq of the last change rendered (the next one's prevSeq); null before the first. */
  lastRendered: number | null
  readonly open = new Map<string, ActiveOrder>()
  #nextName = 1

  constructor(siteId: string, options: { prefix: string; timezone?: string; startedAt?: number; firstSeq?: number }) {
    this.siteId = siteId
    this.prefix = options.prefix
    this.timezone = options.timezone ?? 'UTC'
    this.startedAt = options.startedAt ?? Date.now()
    this.seq = options.firstSeq ?? 0
    this.lastRendered = options.firstSeq || null
  }

  #render(type: ChangeType, order: ActiveOrder, at: number): SiteMessageOut[] {
    const seq = ++this.seq
    const prevSeq = this.lastRendered
    this.lastRendered = seq
    return fleetMessages({ seq, type, order: { ...order }, at }, { siteId: this.siteId, timezone: this.timezone, prevSeq }).map((m) => ({
      topic: `${this.prefix}/${this.siteId}/${m.channel}`,
      payload: m.payload,
      seq,
    }))
  }

  /** A new order waiting for its table. */
  create(at = Date.now(), name = this.#nextName++): { order: ActiveOrder; messages: SiteMessageOut[] } {
    const order = sampleOrder(name % 1000 || 1000, at, { uuid: randomUUID(), tracking: false })
    this.open.set(order.uuid, order)
    return { order, messages: this.#render('ORDER_CREATED', order, at) }
  }

  locate(uuid: string, table: number, at = Date.now()): SiteMessageOut[] {
    const order = this.open.get(uuid)!
    Object.assign(order, { state: 'located', locationName: table, located: at, stateChanged: at })
    return this.#render('ORDER_MODIFIED', order, at)
  }

  clear(uuid: string, at = Date.now()): SiteMessageOut[] {
    const order = this.open.get(uuid)!
    this.open.delete(uuid)
    Object.assign(order, { state: 'cleared', stateChanged: at })
    return this.#render('ORDER_CLEARED', order, at)
  }

  /** One whole order: created at `at`, on a table after toTableS, cleared after clearS more. */
  fullOrder(at: number, toTableS: number, clearS: number): SiteMessageOut[] {
    const { order, messages } = this.create(at)
    return [...messages, ...this.locate(order.uuid, 1 + (order.name % 40), at + toTableS * 1000), ...this.clear(order.uuid, at + (toTableS + clearS) * 1000)]
  }

  /** The retained status message, in the bridge's form (docs/fleet.md). */
  /** radioUp: as a gateway that reports its radio sends it (absent: one that does not). */
  /** replayAfter: what it says it can still replay (absent: an older gateway). */
  status(online: boolean, options: { at?: number; backlog?: number; reason?: string; radioUp?: boolean; replayAfter?: number } = {}): SiteMessageOut {
    const at = options.at ?? Date.now()
    const body = {
      siteId: this.siteId,
      online,
      ...(options.reason ? { reason: options.reason } : {}),
      deviceId: `TG-${this.siteId}`,
      version: '0.1.0',
      startedAt: new Date(this.startedAt).toISOString(),
      at: new Date(at).toISOString(),
      backlog: options.backlog ?? 0,
      lastPublishedSeq: this.seq || null,
      ...(options.radioUp !== undefined ? { radioUp: options.radioUp, radioKind: 'zigbee' } : {}),
      ...(options.replayAfter !== undefined ? { replayAfter: options.replayAfter } : {}),
    }
    return { topic: `${this.prefix}/${this.siteId}/status`, payload: JSON.stringify(body), seq: 0 }
  }
}
