// Presenting active orders the way each API version shows them, at the gateway's current
// time and timezone.
import { activeOrderV1, activeOrderV2 } from './present-order.ts'
import type { Clock } from '../kernel/clock.ts'
import type { ActiveOrder } from '../orders/types.ts'

export interface ViewDeps {
  clock: Pick<Clock, 'now'>
  settings: { timezone: string }
}

export function v1View(deps: ViewDeps) {
  const options = { now: deps.clock.now(), timezone: deps.settings.timezone }
  return (order: ActiveOrder) => activeOrderV1(order, options)
}

export function v2View(deps: ViewDeps) {
  const options = { now: deps.clock.now(), timezone: deps.settings.timezone }
  return (order: ActiveOrder) => activeOrderV2(order, options)
}
