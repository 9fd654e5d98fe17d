// The active-order list as GET /api/v1|v2/activeorders answer it, serialised once and reused
// until it can differ: an order changed, the second ticked (elapsedTime is in whole
// seconds), or the timezone setting changed. Kitchen displays poll this list; presenting
// and serialising every order on every poll was most of the route's cost.
import { RawJson } from './raw-json.ts'
import type { PresentedList } from './wire-types.ts'
import type { Clock } from '../kernel/clock.ts'
import type { OrdersService } from '../orders/service.ts'
import type { ActiveOrder } from '../orders/types.ts'
import { v1View, v2View } from './active-order-views.ts'

export interface ActiveListDeps {
  orders: Pick<OrdersService, 'list' | 'revision'>
  clock: Pick<Clock, 'now'>
  settings: { timezone: string }
}

export type { PresentedList } from './wire-types.ts'

export class ActiveOrderList {
  readonly #deps: ActiveListDeps
  readonly #cache = new Map<'v1' | 'v2', { key: string; list: PresentedList }>()

  constructor(deps: ActiveListDeps) {
    this.#deps = deps
  }

  presented(version: 'v1' | 'v2'): PresentedList {
    const { orders, clock, settings } = this.#deps
    const now = clock.now()
    const key = `${orders.revision}|${Math.floor(now / 1000)}|${settings.timezone}`
    const cached = this.#cache.get(version)
    if (cached?.key === key) return cached.list
    const view: (order: ActiveOrder) => object = version === 'v1' ? v1View(this.#deps) : v2View(this.#deps)
    const items = orders.list().map(view)
    const list = { count: items.length, items: new RawJson(JSON.stringify(items)) }
    this.#cache.set(version, { key, list })
    return list
  }
}
