// What one order change becomes on the fleet's topics: the ORDER_MODIFIED notification (the
// webhook payload with seq, plus the change type and site) on `events`, and for a cleared
// order its summary (with seq) on `history`. Rendered once, when the change is recorded, so a
// message published again after an outage, or replayed for headquarters, is byte-for-byte the
// first one. Both carry `prevSeq`, the seq of the change the site rendered before this one
// (null for its first): a consumer can tell from it that it missed something (docs/fleet.md).
import { orderModifiedPayload, orderSummary } from '../orders/notification.ts'
import { summaryOf, type OrderChange, type OrderSummary } from '../orders/types.ts'
import type { FleetMessage } from './outbox.ts'

export interface RenderOptions {
  siteId: string
  timezone: string
  /** The stored summary of a cleared order, when history already has it. */
  storedSummary?: (uuid: string) => OrderSummary | undefined
  /** The seq of the change rendered before this one (null: none); left out when undefined. */
  prevSeq?: number | null
}

export function fleetMessages(change: OrderChange, { siteId, timezone, storedSummary, prevSeq }: RenderOptions): FleetMessage[] {
  const chain = prevSeq === undefined ? {} : { prevSeq }
  const event = {
    ...orderModifiedPayload(change.order, change.seq, { now: change.at, timezone }),
    change: change.type,
    siteId,
    // The same instants in UTC: `created` and `stateStarted` are the site's local times
    // without an offset (the ORDER_MODIFIED form), which HQ could only read with a zone table.
    createdAt: new Date(change.order.created).toISOString(),
    stateStartedAt: new Date(change.order.stateChanged).toISOString(),
    ...chain,
  }
  const messages: FleetMessage[] = [{ channel: 'events', payload: JSON.stringify(event) }]
  if (change.type === 'ORDER_CLEARED') {
    const summary = storedSummary?.(change.order.uuid) ?? summaryOf(change.order, change.at)
    messages.push({ channel: 'history', payload: JSON.stringify({ ...orderSummary(summary, timezone), seq: change.seq, siteId, ...chain }) })
  }
  return messages
}

/** An upgrade a site is told to make: the release, where to fetch it, and its signature. */
export interface RolloutUpgradeCommand {
  rolloutId: number
  attempt: number
  action: 'upgrade'
  version: string
  sha256: string
  size: number
  url: string
  secret: string
  signature: unknown
}

/** What HQ tells a site on <prefix>/<site>/rollout (retained); written by lib/hq, read by the site's rollout agent. */
export type RolloutCommand = RolloutUpgradeCommand | { rolloutId: number; action: 'stand-down' }
