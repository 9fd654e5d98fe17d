// How a function presents domain records: bound to the API version, the clock's now and the
// gateway's timezone once per request (ctx.present), so a function writes
// ctx.present.activeOrder(order), not v2View(ctx.services)(order).
import type { Clock } from '../kernel/clock.ts'
import type { TrackerRecord } from '../inventory/trackers.ts'
import type { ActiveOrder } from '../orders/types.ts'
import type { OrderSummary } from '../orders/types.ts'
import { trackerView, type TrackerView } from './present-tracker.ts'
import { presentToken } from './present-token.ts'
import type { TokenRecord } from '../tokens/service.ts'
import { formatWithOffset } from '../kernel/time.ts'
import type { ApiVersion } from './envelope.ts'
import { activeOrderV1, activeOrderV2, orderSummary } from './present-order.ts'

export interface Presenter {
  /** The instant this request is presented at, and the gateway's timezone. */
  readonly now: number
  readonly timezone: string
  /** An active order in this version's fields (v1 stateStarted / "Yes"; v2 stateChanged / boolean). */
  activeOrder(order: ActiveOrder): Record<string, unknown>
  orderSummary(summary: OrderSummary): Record<string, unknown>
  /** A token record; the full token only where it is shown once (generate). */
  token(record: TokenRecord, fullToken?: string): Record<string, unknown>
  tracker(record: TrackerRecord): TrackerView
  /** An instant with the gateway's offset; null stays null. */
  time(ms: number | null): string | null
}

export interface PresenterDeps {
  clock: Pick<Clock, 'now'>
  settings: { timezone: string }
}

export function presenter(version: ApiVersion, deps: PresenterDeps): Presenter {
  const now = deps.clock.now()
  const timezone = deps.settings.timezone
  const options = { now, timezone }
  const active = version === 'v1' ? activeOrderV1 : activeOrderV2
  return {
    now,
    timezone,
    activeOrder: (order) => active(order, options),
    orderSummary: (summary) => orderSummary(summary, timezone),
    token: (record, fullToken) => presentToken(record, timezone, fullToken),
    tracker: (record) => trackerView(record, timezone, now),
    time: (ms) => (ms === null ? null : formatWithOffset(ms, timezone)),
  }
}
