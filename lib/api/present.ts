// How orders look on the wire, per API version (decisions §2-3). Times are formatted in the
// gateway's timezone at the moment of answering, so a timezone change shows at once.
import type { ActiveOrder, OrderChange, OrderSummary } from '../orders/types.ts'
import { formatLocal, formatWithOffset } from '../kernel/time.ts'

export interface PresentOptions {
  now: number
  timezone: string
}

function elapsedSeconds(order: ActiveOrder, now: number): number {
  return Math.max(0, Math.floor((now - order.created) / 1000))
}

function common(order: ActiveOrder, timezone: string) {
  return {
    uuid: order.uuid,
    name: String(order.name),
    created: formatLocal(order.created, timezone),
    orderType: order.orderType,
    locationName: order.locationName === null ? '' : String(order.locationName),
    state: order.state,
  }
}

/** v1: stateStarted, paged "Yes"/"No", elapsedTime. */
export function activeOrderV1(order: ActiveOrder, { now, timezone }: PresentOptions) {
  return {
    ...common(order, timezone),
    stateStarted: formatLocal(order.stateChanged, timezone),
    paged: order.paged ? 'Yes' : 'No',
    elapsedTime: elapsedSeconds(order, now),
  }
}

/** v2: stateChanged, boolean paged, elapsedTime. */
export function activeOrderV2(order: ActiveOrder, { now, timezone }: PresentOptions) {
  return {
    ...common(order, timezone),
    stateChanged: formatLocal(order.stateChanged, timezone),
    paged: order.paged,
    elapsedTime: elapsedSeconds(order, now),
  }
}

/** Order summary (both versions): timestamps carry the gateway's UTC offset. */
export function orderSummary(summary: OrderSummary, timezone: string) {
  return {
    uuid: summary.uuid,
    name: String(summary.name),
    type: 'ORDER_SUMMARY' as const,
    orderType: summary.orderType,
    locationName: summary.locationName === null ? null : String(summary.locationName),
    orderStarted: formatWithOffset(summary.orderStarted, timezone),
    orderLocated: summary.orderLocated === null ? null : formatWithOffset(summary.orderLocated, timezone),
    orderCleared: formatWithOffset(summary.orderCleared, timezone),
  }
}

/**
 * The ORDER_MODIFIED notification of the spec (webhooks, fleet bridge) plus `seq`. `now` is
 * the moment of the change, so a redelivered notification is identical to the first.
 */
export function orderModifiedPayload(order: ActiveOrder, seq: number, { now, timezone }: PresentOptions) {
  return {
    elapsedTime: elapsedSeconds(order, now),
    uuid: order.uuid,
    seq,
    created: formatLocal(order.created, timezone),
    orderType: order.orderType,
    locationName: order.locationName === null ? '' : String(order.locationName),
    state: order.state,
    stateStarted: formatLocal(order.stateChanged, timezone),
    type: 'ORDER_MODIFIED' as const,
    name: String(order.name),
  }
}

/** A WebSocket change frame: the v2 active order's fields at top level plus seq and type. */
export function orderChangeFrame(change: OrderChange, options: PresentOptions) {
  return { ...activeOrderV2(change.order, options), seq: change.seq, type: change.type }
}
