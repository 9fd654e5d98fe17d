// How orders look on the wire, per API version (docs/api.md, "Active orders" and "History
// and statistics"). Times are formatted in the gateway's timezone at the moment of
// answering, so a timezone change shows at once.
// The notification forms (ORDER_MODIFIED, the order summary) are the domain's own
// (lib/orders/notification.ts): webhooks and the fleet bridge render them too.
import { elapsedSeconds, type PresentOptions } from '../orders/notification.ts'
import type { ActiveOrder, OrderChange } from '../orders/types.ts'
import { formatLocal } from '../kernel/time.ts'
import type { ActiveOrderV1, ActiveOrderV2 } from './wire-types.ts'

export { orderModifiedPayload, orderSummary, type PresentOptions } from '../orders/notification.ts'

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
export function activeOrderV1(order: ActiveOrder, { now, timezone }: PresentOptions): ActiveOrderV1 {
  return {
    ...common(order, timezone),
    stateStarted: formatLocal(order.stateChanged, timezone),
    paged: order.paged ? 'Yes' : 'No',
    elapsedTime: elapsedSeconds(order, now),
  }
}

/** v2: stateChanged, boolean paged, elapsedTime. */
export function activeOrderV2(order: ActiveOrder, { now, timezone }: PresentOptions): ActiveOrderV2 {
  return {
    ...common(order, timezone),
    stateChanged: formatLocal(order.stateChanged, timezone),
    paged: order.paged,
    elapsedTime: elapsedSeconds(order, now),
  }
}

/** A WebSocket change frame: the v2 active order's fields at top level plus seq and type. */
export function orderChangeFrame(change: OrderChange, options: PresentOptions) {
  return { ...activeOrderV2(change.order, options), seq: change.seq, type: change.type }
}
