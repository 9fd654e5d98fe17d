// The order domain's shapes, shared by the orders service, history, events and presenters.
// Times are milliseconds since the epoch; presenters format them in the gateway's timezone.
import type { Outcome } from '../kernel/errors.ts'

export type OrderType = 'ON_PREMISE' | 'TO_GO'

/** How a caller names an active order: by its number or by its UUID. */
export type OrderRef = { name: number } | { uuid: string }

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** An order UUID in its 8-4-4-4-12 hex form (any case). */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value)
}
export type OrderState = 'started' | 'located' | 'cleared'

export interface ActiveOrder {
  uuid: string
  /** The order number, which is also the tracker's number. */
  name: number
  orderType: OrderType
  state: OrderState
  locationName: number | null
  created: number
  /** When the current state began. */
  stateChanged: number
  located: number | null
  /** Radio address of the bound tracker, or null (v2 orders created without a tracker). */
  tracker: string | null
  /** Whether this order has ever had a tracker (decides -14 vs 1003 on cancel). */
  hadTracker: boolean
  paged: boolean
  /** Continuous paging (lease re-sent) when true; a single ~60 s page when false. */
  tracking: boolean
  pagedAt: number | null
}

export interface OrderSummary {
  uuid: string
  name: number
  orderType: OrderType
  locationName: number | null
  orderStarted: number
  orderLocated: number | null
  orderCleared: number
}

export type ChangeType = 'ORDER_CREATED' | 'ORDER_MODIFIED' | 'ORDER_PAGED' | 'ORDER_CLEARED'

/** One change to an active order, numbered by the global, persistent, increasing seq. */
export interface OrderChange {
  seq: number
  type: ChangeType
  order: ActiveOrder
  at: number
}

/**
 * The history row of an order cleared at `clearedAt`. A row never ends before it starts,
 * nor is it located outside that span: the last line of defence for times an earlier run
 * took on a clock that was not right and no step could mend (docs/api.md, "Clock"); the
 * start is what gives way, as the time the gateway knows least well.
 */
export function summaryOf(order: ActiveOrder, clearedAt: number): OrderSummary {
  const started = Math.min(order.created, clearedAt)
  return {
    uuid: order.uuid,
    name: order.name,
    orderType: order.orderType,
    locationName: order.locationName,
    orderStarted: started,
    orderLocated: order.located === null ? null : Math.min(Math.max(order.located, started), clearedAt),
    orderCleared: clearedAt,
  }
}

export interface CreateInput {
  name: number
  orderType?: OrderType
  locationName?: number
  /** v1: a new order needs a known tracker (or the dummy address). */
  requireTracker: boolean
  /** v1 test aid `dummy_tracker_address=true`: stand in an address when none is known. */
  dummyTracker?: boolean
  /** A recall: the cleared order's start and location times, kept by the new order. */
  recalled?: { started: number; located: number | null }
}

export interface OrderResult {
  order: ActiveOrder
  outcome?: Outcome
}
