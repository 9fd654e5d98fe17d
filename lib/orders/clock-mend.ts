// Mending a clock step (lib/kernel/clock-watch.ts): the gateway's clock and every timestamp
// it took since start-up share one timeline, so a step of the system clock (or a time set
// from a board) moves them all by the same amount. Times an earlier run took (before a
// restart or a power cut) are on that run's clock, which this step never touched: they stay
// (lib/orders/stamps.ts). Waiting times, lateness and statistics (differences of those
// timestamps) then stay what they were, and the times themselves become right. What was
// already sent out (webhooks, fleet, WebSocket) keeps the times it was sent with
// (docs/api.md, "Clock").
import type { Logger } from '../kernel/log.ts'
import { timeFields, type TimeField } from './stamps.ts'
import type { ActiveOrder } from './types.ts'

/** Moves the times an active order carries by deltaMs (in place): all, or those `fields` names. */
export function shiftOrderTimes(order: ActiveOrder, deltaMs: number, fields: readonly TimeField[] = timeFields): void {
  for (const field of fields) {
    const value = order[field]
    if (value !== null) order[field] = value + deltaMs
  }
}

export interface ClockMendDeps {
  /** Moves the active orders, the tracker inventory and, in the same tick, the clock (OrdersService.shiftTimes). */
  orders: { shiftTimes(deltaMs: number, moveClock: () => void): Promise<number> }
  /** Moves the history times written since start-up (HistoryStore.shiftWritten). */
  history: { shiftWritten(deltaMs: number): number }
  /** Forgets presented history pages (HistoryPages.forget). */
  historyPages: { forget(): void }
  /** Moves when repeaters were seen (RepeaterInventory.shiftTimes). */
  repeaters: { shiftTimes(deltaMs: number): Promise<void> }
  clock: { shift(deltaMs: number): void }
  log: Logger
}

/** The `mend` a ClockWatch is given: orders, trackers and clock together, then history and repeaters. */
export async function mendClock(deps: ClockMendDeps, deltaMs: number): Promise<void> {
  const orders = await deps.orders.shiftTimes(deltaMs, () => deps.clock.shift(deltaMs))
  const rows = deps.history.shiftWritten(deltaMs)
  deps.historyPages.forget()
  await deps.repeaters.shiftTimes(deltaMs)
  deps.log.info({ shiftSeconds: Math.round(deltaMs / 1000), activeOrders: orders, historyRows: rows }, 'clock step mended')
}
