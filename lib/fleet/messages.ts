// What one order change becomes on the fleet's topics: the ORDER_MODIFIED notification (the
// webhook payload with seq, plus the change type and site) on `events`, and for a cleared
// order its summary (with seq) on `history`. Rendered once, when the change is recorded, so a
// message published again after an outage is byte-for-byte the first one.
import { orderModifiedPayload, orderSummary } from '../orders/notification.ts'
import { summaryOf, type OrderChange, type OrderSummary } from '../orders/types.ts'
import type { FleetMessage } from './outbox.ts'

export interface RenderOptions {
  siteId: string
  timezone: string
  /** The stored summary of a cleared order, when history already has it. */
  storedSummary?: (uuid: string) => OrderSummary | undefined
}

export function fleetMessages(change: OrderChange, { siteId, timezone, storedSummary }: RenderOptions): FleetMessage[] {
  const event = {
    ...orderModifiedPayload(change.order, change.seq, { now: change.at, timezone }),
    change: change.type,
    siteId,
  }
  const messages: FleetMessage[] = [{ channel: 'events', payload: JSON.stringify(event) }]
  if (change.type === 'ORDER_CLEARED') {
    const summary = storedSummary?.(change.order.uuid) ?? summaryOf(change.order, change.at)
    messages.push({ channel: 'history', payload: JSON.stringify({ ...orderSummary(summary, timezone), seq: change.seq, siteId }) })
  }
  return messages
}
