// A plain active order for tests that need one without going through the orders service.
import type { ActiveOrder } from '../../lib/orders/types.ts'

export function sampleOrder(name: number, at = Date.parse('2026-11-22T12:00:00Z'), fields: Partial<ActiveOrder> = {}): ActiveOrder {
  return {
    uuid: `00000000-0000-4000-8000-${String(name).padStart(12, '0')}`,
    name,
    orderType: 'ON_PREMISE',
    state: 'started',
    locationName: null,
    created: at,
    stateChanged: at,
    located: null,
    tracker: null,
    hadTracker: false,
    paged: false,
    tracking: true,
    pagedAt: null,
    ...fields,
  }
}
