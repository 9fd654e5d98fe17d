// The active-order state machine: started → located → cleared. What the radio reports
// (tracker started on a starter, located at a table, cleared at a clearer) and what the API
// asks (create, locate, clear, page, cancel) are actions on the same pure function, so both
// paths obey the same rules. step() never performs I/O: it returns the writes to persist
// (one per changed order, each with the change type to record) and the paging effects to
// apply once that write is durable. Errors are thrown as DomainError before anything changes.
import { DomainError, type Outcome } from '../kernel/errors.ts'
import type { ActiveOrder, ChangeType, OrderRef, OrderType } from './types.ts'

export type OrdersAction =
  | { kind: 'radioStart'; address: string; number: number; orderType: OrderType; at: number; uuid: string }
  | { kind: 'radioLocate'; address: string; table: number; at: number }
  | { kind: 'radioClear'; address: string; at: number }
  | {
      kind: 'create'
      name: number
      /** Absent: keep the existing type (a new order defaults to ON_PREMISE). */
      orderType?: OrderType
      locationName?: number
      /** The tracker to bind to a new order (or to an existing one that has none). */
      tracker: string | null
      /** v1: a new order needs a tracker the gateway knows (or the dummy address). */
      requireTracker: boolean
      at: number
      uuid: string
      /**
       * A recall (docs/api.md, "Recall"): the cleared order's own start and location times,
       * which the new order keeps; an order already active with this number is left as it is.
       */
      recalled?: { started: number; located: number | null }
    }
  | { kind: 'clear'; ref: OrderRef; at: number }
  | { kind: 'clearAll'; at: number }
  | { kind: 'page'; ref: OrderRef; tracking: boolean; at: number }
  | { kind: 'cancelPage'; ref: OrderRef; at: number }
  /** A single (non-tracking) page of this tracker ran out. */
  | { kind: 'pageLapsed'; tracker: string; at: number }

export type PagingEffect = { kind: 'page'; tracker: string; tracking: boolean } | { kind: 'stopPaging'; tracker: string }

/**
 * One order's new version. ORDER_CLEARED means: summary into history, then out of the
 * active set; any other type means: store this version.
 */
export interface OrderWrite {
  type: ChangeType
  order: ActiveOrder
  /** Applied only after this write is durable. */
  effects: PagingEffect[]
}

export interface StepResult {
  writes: OrderWrite[]
  /** The order the request was about, after the step (absent for clearAll and radio no-ops). */
  order?: ActiveOrder
  outcome?: Outcome
}

/**
 * The active orders a step reads: in the order they joined, and looked up by uuid, number
 * or tracker (each names one active order at most). The orders service's is an ActiveSet
 * (active-set.ts), which also applies the writes.
 */
export interface ActiveOrders extends Iterable<ActiveOrder> {
  byUuid(uuid: string): ActiveOrder | undefined
  byName(name: number): ActiveOrder | undefined
  byTracker(tracker: string): ActiveOrder | undefined
}

export function findByRef(active: ActiveOrders, ref: OrderRef): ActiveOrder | undefined {
  return 'uuid' in ref ? active.byUuid(ref.uuid) : active.byName(ref.name)
}

function findByTracker(active: ActiveOrders, tracker: string): ActiveOrder | undefined {
  return active.byTracker(tracker)
}

function mustFind(active: ActiveOrders, ref: OrderRef): ActiveOrder {
  const order = findByRef(active, ref)
  if (!order) throw new DomainError('ORDER_NOT_FOUND')
  return order
}

function newOrder(fields: { uuid: string; name: number; orderType: OrderType; tracker: string | null; at: number }): ActiveOrder {
  return {
    uuid: fields.uuid,
    name: fields.name,
    orderType: fields.orderType,
    state: 'started',
    locationName: null,
    created: fields.at,
    stateChanged: fields.at,
    located: null,
    tracker: fields.tracker,
    hadTracker: fields.tracker !== null,
    paged: false,
    tracking: false,
    pagedAt: null,
  }
}

function locate(order: ActiveOrder, table: number, at: number): ActiveOrder {
  if (order.state === 'located') return order.locationName === table ? order : { ...order, locationName: table }
  return { ...order, state: 'located', locationName: table, stateChanged: at, located: at }
}

function unpaged(order: ActiveOrder): ActiveOrder {
  return order.paged ? { ...order, paged: false, tracking: false, pagedAt: null } : order
}

function changed(a: ActiveOrder, b: ActiveOrder): boolean {
  // for…in rather than Object.keys(): no array of keys built for every change.
  for (const key in a) if (a[key as keyof ActiveOrder] !== b[key as keyof ActiveOrder]) return true
  return false
}

/** The write that clears an order: state cleared, paging over, tracker stopped if paged. */
function clearWrite(order: ActiveOrder, at: number): OrderWrite {
  const cleared: ActiveOrder = { ...unpaged(order), state: 'cleared', stateChanged: at }
  const effects: PagingEffect[] = order.tracker ? [{ kind: 'stopPaging', tracker: order.tracker }] : []
  return { type: 'ORDER_CLEARED', order: cleared, effects }
}

/**
 * Binds `tracker` to `order`. A tracker belongs to one active order at most, so another
 * order holding it loses it (and its paging); paging of the order's previous tracker moves
 * to the new one.
 */
function bind(active: ActiveOrders, order: ActiveOrder, tracker: string): { order: ActiveOrder; writes: OrderWrite[]; effects: PagingEffect[] } {
  const writes: OrderWrite[] = []
  const effects: PagingEffect[] = []
  const holder = findByTracker(active, tracker)
  if (holder && holder.uuid !== order.uuid) {
    writes.push({ type: 'ORDER_MODIFIED', order: { ...unpaged(holder), tracker: null }, effects: holder.paged ? [{ kind: 'stopPaging', tracker }] : [] })
  }
  if (order.tracker === tracker) return { order, writes, effects }
  if (order.paged && order.tracker) effects.push({ kind: 'stopPaging', tracker: order.tracker })
  if (order.paged) effects.push({ kind: 'page', tracker, tracking: order.tracking })
  return { order: { ...order, tracker, hadTracker: true }, writes, effects }
}

function radioStart(active: ActiveOrders, action: Extract<OrdersAction, { kind: 'radioStart' }>): StepResult {
  const existing = active.byName(action.number)
  if (!existing) {
    const others = bind(active, newOrder({ uuid: action.uuid, name: action.number, orderType: action.orderType, tracker: null, at: action.at }), action.address)
    const order = others.order
    return { writes: [...others.writes, { type: 'ORDER_CREATED', order, effects: [] }], order }
  }
  // Last activation wins: a start on the other starter changes the order type.
  const bound = bind(active, { ...existing, orderType: action.orderType }, action.address)
  if (!changed(existing, bound.order)) return { writes: bound.writes, order: existing }
  return { writes: [...bound.writes, { type: 'ORDER_MODIFIED', order: bound.order, effects: bound.effects }], order: bound.order }
}

function radioLocate(active: ActiveOrders, action: Extract<OrdersAction, { kind: 'radioLocate' }>): StepResult {
  const order = findByTracker(active, action.address)
  // A tracker on a table that no active order holds (never started, or already cleared).
  if (!order) return { writes: [] }
  const next = locate(order, action.table, action.at)
  if (next === order) return { writes: [], order }
  return { writes: [{ type: 'ORDER_MODIFIED', order: next, effects: [] }], order: next }
}

function radioClear(active: ActiveOrders, action: Extract<OrdersAction, { kind: 'radioClear' }>): StepResult {
  const order = findByTracker(active, action.address)
  if (!order) return { writes: [] }
  const write = clearWrite(order, action.at)
  return { writes: [write], order: write.order }
}

function create(active: ActiveOrders, action: Extract<OrdersAction, { kind: 'create' }>): StepResult {
  const existing = active.byName(action.name)
  if (!existing) {
    if (action.requireTracker && action.tracker === null) throw new DomainError('TRACKER_UNKNOWN')
    let order = newOrder({
      uuid: action.uuid,
      name: action.name,
      orderType: action.orderType ?? 'ON_PREMISE',
      tracker: null,
      at: action.recalled?.started ?? action.at,
    })
    const writes: OrderWrite[] = []
    if (action.tracker !== null) {
      const bound = bind(active, order, action.tracker)
      writes.push(...bound.writes)
      order = bound.order
    }
    if (action.locationName !== undefined) order = locate(order, action.locationName, action.recalled?.located ?? action.at)
    writes.push({ type: 'ORDER_CREATED', order, effects: [] })
    return { writes, order }
  }
  const outcome: Outcome = existing.state === 'located' ? 'ALREADY_LOCATED' : 'ALREADY_STARTED'
  // The number is on the board again: a recall would change that order, so it leaves it be.
  if (action.recalled) return { writes: [], order: existing, outcome }
  let next: ActiveOrder = action.orderType ? { ...existing, orderType: action.orderType } : existing
  if (action.locationName !== undefined) next = locate(next, action.locationName, action.at)
  const writes: OrderWrite[] = []
  let effects: PagingEffect[] = []
  if (next.tracker === null && action.tracker !== null) {
    const bound = bind(active, next, action.tracker)
    writes.push(...bound.writes)
    next = bound.order
    effects = bound.effects
  }
  if (!changed(existing, next)) return { writes, order: existing, outcome }
  writes.push({ type: 'ORDER_MODIFIED', order: next, effects })
  return { writes, order: next, outcome }
}

function page(active: ActiveOrders, action: Extract<OrdersAction, { kind: 'page' }>): StepResult {
  const order = mustFind(active, action.ref)
  if (order.tracker === null) throw new DomainError('NO_TRACKER_TO_PAGE')
  // A repeated page restarts the lease (and may switch between once and tracking).
  const next: ActiveOrder = { ...order, paged: true, tracking: action.tracking, pagedAt: action.at }
  return { writes: [{ type: 'ORDER_PAGED', order: next, effects: [{ kind: 'page', tracker: order.tracker, tracking: action.tracking }] }], order: next }
}

function cancelPage(active: ActiveOrders, action: Extract<OrdersAction, { kind: 'cancelPage' }>): StepResult {
  const order = mustFind(active, action.ref)
  if (order.tracker === null && !order.hadTracker) throw new DomainError('NO_TRACKER_TO_CANCEL')
  if (!order.paged || order.tracker === null) return { writes: [], order, outcome: 'NOTHING_TO_CANCEL' }
  const next = unpaged(order)
  return {
    writes: [{ type: 'ORDER_MODIFIED', order: next, effects: [{ kind: 'stopPaging', tracker: order.tracker }] }],
    order: next,
    outcome: 'PAGING_CANCELLED',
  }
}

function pageLapsed(active: ActiveOrders, action: Extract<OrdersAction, { kind: 'pageLapsed' }>): StepResult {
  const order = findByTracker(active, action.tracker)
  // Tracking pages never lapse; a lapse report for them is stale.
  if (!order?.paged || order.tracking) return { writes: [] }
  const next = unpaged(order)
  return { writes: [{ type: 'ORDER_MODIFIED', order: next, effects: [] }], order: next }
}

/** Applies one action to the active set. Pure: the caller persists the writes in order. */
export function step(active: ActiveOrders, action: OrdersAction): StepResult {
  switch (action.kind) {
    case 'radioStart':
      return radioStart(active, action)
    case 'radioLocate':
      return radioLocate(active, action)
    case 'radioClear':
      return radioClear(active, action)
    case 'create':
      return create(active, action)
    case 'clear': {
      const write = clearWrite(mustFind(active, action.ref), action.at)
      return { writes: [write], order: write.order }
    }
    case 'clearAll':
      return { writes: Array.from(active, (order) => clearWrite(order, action.at)) }
    case 'page':
      return page(active, action)
    case 'cancelPage':
      return cancelPage(active, action)
    case 'pageLapsed':
      return pageLapsed(active, action)
  }
}
