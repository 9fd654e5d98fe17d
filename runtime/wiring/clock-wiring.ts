// The clock watch (lib/kernel/clock-watch.ts) wired to what a clock step moves: the active
// orders, the trackers and the clock together, the history rows written since start-up, the
// history pages presented from them and the repeaters (lib/orders/clock-mend.ts). Only the gateway's own clock
// (GatewayClock) can be watched and moved; a test's hand-moved clock gets no watch.
import type { GatewayConfig } from '../../lib/config.ts'
import type { HistoryPages } from '../../lib/api/history-pages.ts'
import { ClockWatch, type SyncReading } from '../../lib/kernel/clock-watch.ts'
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
}

export function buildClockWatch(deps: ClockWiringDeps): ClockWatch | undefined {
  const { config, clock, log, orders, history, historyPages, repeaters } = deps
  if (!isAdjustable(clock)) return undefined
  return new ClockWatch({
    clock,
    log,
    mend: (deltaMs) => mendClock({ orders, history, historyPages, repeaters, clock, log }, deltaMs),
    readSync: deps.readSync ?? (() => readSystemSync()),
    thresholdMs: config.clock.jumpThresholdMs,
    checkEveryMs: 1000,
    syncCheckMs: config.clock.syncCheckSeconds * 1000,
    holdMs: config.clock.holdDeliveriesSeconds * 1000,
    boardMaxShiftMs: config.clock.boardMaxShiftDays * 86_400_000,
  })
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
