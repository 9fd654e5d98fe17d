// The clock watch (lib/kernel/clock-watch.ts) wired to what a clock step moves: the active
// orders, the trackers and the clock together, the history rows written since start-up, the
// history pages presented from them and the repeaters (lib/orders/clock-mend.ts). Only the gateway's own clock
// (GatewayClock) can be watched and moved; a test's hand-moved clock gets no watch. A
// start on a system clock behind the high-water mark (the mark earlier runs left, and the
// times the active orders carry from runs whose clock was not known wrong) starts the
// gateway's clock at that mark; a step behind it later stops where the clock counted to
// from there.
import type { GatewayConfig } from '../../lib/config.ts'
import type { HistoryPages } from '../../lib/api/history-pages.ts'
import { ClockWatch, type SyncReading } from '../../lib/kernel/clock-watch.ts'
import { ClockRuns } from '../../lib/kernel/clock-runs.ts'
import type { Clock } from '../../lib/kernel/clock.ts'
import { isAdjustable } from '../../lib/kernel/gateway-clock.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { readSystemSync } from '../../lib/gateway/time-sync.ts'
import type { HistoryStore } from '../../lib/history/store.ts'
import { mendClock } from '../../lib/orders/clock-mend.ts'
import type { OrdersService } from '../../lib/orders/service.ts'
import type { RepeaterInventory } from '../../lib/inventory/repeaters.ts'
import type { Part } from './lifecycle.ts'

export interface ClockWiringDeps {
  config: GatewayConfig
  clock: Clock
  log: Logger
  orders: OrdersService
  history: HistoryStore
  historyPages: HistoryPages
  repeaters: RepeaterInventory
  readSync?: () => Promise<SyncReading>
  /** This run and the high-water mark (default: a fresh one in memory). */
  runs?: ClockRuns
}

export function buildClockWatch(deps: ClockWiringDeps): ClockWatch | undefined {
  const { config, clock, log, orders, history, historyPages, repeaters } = deps
  if (!isAdjustable(clock)) return undefined
  const runs = deps.runs ?? ClockRuns.open(undefined)
  const unsure = (run: string) => runs.isUnsure(run)
  const trusted = (run: string) => !unsure(run)
  // What the data dir holds at start was certainly passed before this run began, and this
  // run has been up since: the mark counts on with the monotonic clock. A step behind it
  // then stops where this run's clock would have counted to from the mark, so no time this
  // run took (a history row's end) goes back before a time it found (that row's start).
  runs.raiseEarlier(orders.latestTime(trusted))
  const startedAt = clock.monotonic()
  const earlierMark = () => (runs.earlierHighWater === 0 ? 0 : runs.earlierHighWater + clock.monotonic() - startedAt)
  const watch = new ClockWatch({
    clock,
    log,
    runs,
    ordersOnUnsureClock: () => orders.ordersOnUnsureClock(unsure),
    highWater: () => Math.max(earlierMark(), orders.latestTime(trusted)),
    mend: (deltaMs) => mendClock({ orders, history, historyPages, repeaters, clock, log }, deltaMs),
    readSync: deps.readSync ?? (() => readSystemSync()),
    thresholdMs: config.clock.jumpThresholdMs,
    checkEveryMs: 1000,
    syncCheckMs: config.clock.syncCheckSeconds * 1000,
    holdMs: config.clock.holdDeliveriesSeconds * 1000,
    boardMaxShiftMs: config.clock.boardMaxShiftDays * 86_400_000,
  })
  // Times an earlier run took on a clock that was ahead stay after the right time; once it
  // is known, they are brought back to it (docs/api.md, "When the gateway cannot tell").
  watch.on('right', async () => {
    const orders = await deps.orders.bringBackFromFuture()
    if (orders > 0) log.warn({ orders }, 'active orders dated after the synchronised time (taken on a clock never known right) were brought back to it')
  })
  watch.startBehind()
  return watch
}

/** Watches from start-up (it never waits for the time: an offline box may never get it). */
export function clockPart(watch: ClockWatch | undefined): Part {
  return {
    name: 'clock',
    start: async () => watch?.start(),
    stop: async () => {
      watch?.stop()
      await watch?.settled()
    },
  }
}
