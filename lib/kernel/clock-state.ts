// What the clock watch reports (lib/kernel/clock-watch.ts): data only, so the status and the
// function contract can name it without loading the watch.

export interface ClockJump {
  /** The gateway's time once mended (ms since the epoch). */
  at: number
  /** How far the gateway's clock and its stored timestamps were moved, in ms. */
  shiftMs: number
  /** 'system': the system clock was stepped; 'board': a signed-in board set the time. */
  cause: 'system' | 'board'
}

export interface ClockState {
  /** true/false as the system reports it; null when it cannot tell. */
  synchronized: boolean | null
  source: string
  lastJump: ClockJump | null
  /** When a board last set the gateway's time (ms since the epoch), or null. */
  setFromBoardAt: number | null
  /** Whether deliveries checked against the receiver's clock are held right now. */
  holdingDeliveries: boolean
  /**
   * The system clock (at start, or after a step) was behind a time already written
   * (`highWater`, ms since the epoch) by `behindMs`: the gateway's clock went to highWater
   * instead. Null once a step or a synchronised clock has told the time, or when not so.
   */
  behind: { highWater: number; behindMs: number } | null
  /**
   * Active orders carrying a time an earlier run took on a clock that was not known right
   * (not synchronised, or started behind) and no step mended before it ended: their
   * waiting times may be off and nothing can tell by how much (docs/api.md, "Clock").
   */
  ordersOnUnsureClock: number
}
