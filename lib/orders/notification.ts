// How an order change is written in the notifications the gateway sends out (webhooks, the
// fleet bridge) and how a finished order is summarised (history, the API): the spec's
// ORDER_MODIFIED and ORDER_SUMMARY forms. They belong to the domain because a notification is
// rendered once, when the change is recorded, so one sent again is byte-for-byte the first;
// the API presents the same forms (lib/api/present-order.ts).
import { formatLocal, formatWithOffset } from '../kernel/time.ts'
import type { ActiveOrder, OrderSummary } from './types.ts'

export interface PresentOptions {
  now: number
  timezone: string
}

/** Whole seconds since the order was created, at `now` (never negative). */
export function elapsedSeconds(order: ActiveOrder, now: number): number {
  return Math.max(0, Math.floor((now - order.created) / 1000))
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
