// Summaries for history tests: deterministic uuids so orderings are easy to reason about.
import type { OrderSummary } from '../../../lib/orders/types.ts'

export function uuidOf(n: number): string {
  const hex = n.toString(16).padStart(12, '0')
  return `00000000-0000-4000-8000-${hex}`
}

export function summary(n: number, fields: Partial<OrderSummary> = {}): OrderSummary {
  const orderStarted = fields.orderStarted ?? Date.parse('2026-11-22T10:00:00Z') + n * 60_000
  return {
    uuid: uuidOf(n),
    name: (n % 99) + 1,
    orderType: n % 2 ? 'TO_GO' : 'ON_PREMISE',
    locationName: n % 3 ? (n % 7) + 1 : null,
    orderStarted,
    orderLocated: null,
    orderCleared: orderStarted + 5 * 60_000,
    ...fields,
  }
}
