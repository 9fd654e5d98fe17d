// Notices when the system clock was stepped and has the gateway mend it; knows whether the
// system clock can be trusted. A Raspberry Pi boots with the time it saved before a power cut
// and is stepped when network time answers, often minutes later and hours away.
//
//  - A step: the system clock moved more than thresholdMs against the gateway's clock (which
//    follows the monotonic clock, gateway-clock.ts). Checked on a timer and on every read of
//    the gateway's clock; logged once per step; `mend(deltaMs)` then moves the gateway's
//    clock and the stored timestamps this run took on a clock not known right by the same
//    amount (lib/orders/clock-mend.ts, lib/orders/stamps.ts). A step makes the gateway
//    follow the system clock again, also after a board set the time (the newest setting
//    wins), except a step away from a clock the system said was synchronised in this run
//    (held until it says so again) and one behind the high-water mark (stops at the mark).
//  - Synchronisation: what the system says (`readSync`, lib/gateway/time-sync.ts), read at
//    start-up, every syncCheckMs and after each step; 'unknown' where it cannot be asked.
//  - Behind the high-water mark (clock-runs.ts): a system clock behind a time already
//    written on a clock not known wrong, at boot (a power cut, a day-old saved time) or
//    after a step, is wrong. The gateway's clock goes to that mark instead (startBehind,
//    check) and counts on from there, so no time goes back and no waiting time is
//    negative; the step that comes when the time is known (or the system saying it is
//    synchronised, which wins over the mark) is mended like any other.
//  - Provenance: whether this run's clock is known right ("sure") is kept with the run
//    (clock-runs.ts); the times a run took while unsure and never mended are counted in the
//    state (ordersOnUnsureClock).
//  - Synchronised wins: once the system says its clock is synchronised, the gateway follows
//    it, whatever a board set or a high-water mark said.
//  - Trust: deliveries that receivers check against their own clock (webhooks) are held
//    while the system says its clock is not synchronised and no board has set the time, for
//    at most holdMs (never for ever: an offline restaurant may never get the time), and
//    while a step is being mended. 'trusted' is emitted when that ends.
import type { TimerHandle } from './clock.ts'
import { DomainError } from './errors.ts'
import { EventBus, type Subscribable } from './events.ts'
import type { AdjustableClock } from './gateway-clock.ts'
import type { Logger } from './log.ts'
import type { ClockJump, ClockState } from './clock-state.ts'
export type { ClockJump, ClockState } from './clock-state.ts'

export type SyncState = 'synchronized' | 'unsynchronized' | 'unknown'

export interface SyncReading {
  state: SyncState
  /** Who said so: 'timedatectl', 'chronyc', or 'none' when nothing could be asked. */
  source: string
}

export interface ClockWatchEvents {
  /** A step was mended. */
  jumped: ClockJump
  /** Held deliveries may go. */
  trusted: undefined
  /** The gateway's clock has become known right (right()): no time can be after it now. */
  right: undefined
}

export interface ClockWatchOptions {
  clock: AdjustableClock
  log: Logger
  /** Moves the gateway's clock and the timestamps it stored by deltaMs. */
  mend: (deltaMs: number, cause: ClockJump['cause']) => Promise<void>
  readSync: () => Promise<SyncReading>
  thresholdMs: number
  checkEveryMs: number
  syncCheckMs: number
  holdMs: number
  /** The latest time a board may set, against the gateway's clock, and the earliest at all. */
  boardMaxShiftMs: number
  /** Where this run's trust and the high-water mark are kept (clock-runs.ts). */
  runs?: {
    noteSure(sure: boolean, now: number): void
    noteRight(right: boolean): void
    noteTime(now: number): void
    noteSynchronized(now: number): void
    shifted(deltaMs: number): void
  }
  /** How many active orders carry a time taken on an earlier run's unsure clock. */
  ordersOnUnsureClock?: () => number
  /**
   * The high-water mark: the latest time written on another clock not known wrong (earlier
   * runs, or this one's while known right); the gateway's clock never goes behind it
   * unless the system says it is synchronised.
   */
  highWater?: () => number
}

/** How often the high-water mark is raised while the clock is known right. */
export const highWaterEveryMs = 60_000

/** The longest deliveries wait for the system's first answer (its commands time out sooner). */
export const firstReadingMs = 10_000

/** The earliest time a board may set: nothing this software ran before is older. */
export const earliestBoardTime = Date.UTC(2025, 0, 1)

export class ClockWatch implements Subscribable<ClockWatchEvents> {
  readonly #options: ClockWatchOptions
  readonly #events: EventBus<ClockWatchEvents>
  /** The drift the gateway expects: 0, or minus what a board set against the system clock. */
  #expectedDrift = 0
  #mending: Promise<void> | undefined
  #sync: SyncReading = { state: 'unknown', source: 'none' }
  #lastJump: ClockJump | null = null
  #setFromBoardAt: number | null = null
  /** Monotonic ms when the system first said "not synchronised" (and no board had set it). */
  #untrustedSince: number | undefined
  #holdExpired = false
  #wasTrusted = true
  #wasRight = false
  #checkTimer: TimerHandle | undefined
  #syncTimer: TimerHandle | undefined
  #holdTimer: TimerHandle | undefined
  /** Until the system first answers (at most firstReadingMs), deliveries wait for it. */
  #awaitingFirstReading = false
  #firstReadingTimer: TimerHandle | undefined
  #running = false
  /** A check is under way (it reads the clock, which checks again). */
  #checking = false
  #behind: ClockState['behind'] = null
  /** Monotonic ms when the high-water mark was last raised. */
  #notedAt = -Infinity
  /** The high-water mark was set from the synchronised clock since it last was not. */
  #notedSynchronized = false
  /** A step came after the last reading: whether the clock is right waits for the next. */
  #steppedSinceReading = false
  /** The system said synchronised in this run: the gateway's clock is right since (check). */
  #timelineRight = false
  /** The system says synchronised: the next difference is followed, not held. */
  #followSystem = false
  /** A step away from the right clock is being held (logged once). */
  #holding = false

  constructor(options: ClockWatchOptions) {
    this.#options = options
    this.#events = new EventBus(options.log)
  }

  on<K extends keyof ClockWatchEvents>(event: K, listener: (payload: ClockWatchEvents[K]) => unknown): () => void {
    return this.#events.on(event, listener)
  }

  /**
   * Starts watching; the first reading of the system's state is not waited for (deliveries
   * wait for it, at most firstReadingMs: a box just booted may be hours off).
   */
  start(): void {
    this.#running = true
    this.#awaitingFirstReading = true
    this.#wasTrusted = false
    this.#firstReadingTimer = this.#options.clock.setTimeout(() => this.#firstReadingDone(), firstReadingMs)
    this.#options.clock.onRead(() => this.check())
    this.#armCheck()
    void this.#readSync()
  }

  /**
   * Before start: the data dir holds the high-water mark, a time the clock has certainly
   * passed. A system clock more than the step threshold behind it is wrong: the gateway's
   * clock is moved to the mark (nothing is stamped yet), and the difference is expected
   * until the system clock is stepped or says it is synchronised.
   */
  startBehind(): void {
    const { clock, thresholdMs, log, runs } = this.#options
    const highWater = this.#options.highWater?.() ?? 0
    const now = clock.now()
    const behindMs = Math.round(highWater - now)
    if (behindMs <= thresholdMs) return
    clock.shift(behindMs)
    this.#expectedDrift -= behindMs
    this.#behind = { highWater, behindMs }
    log.warn(
      { behindSeconds: Math.round(behindMs / 1000), highWater: new Date(highWater).toISOString() },
      'the system clock is behind the times the gateway already wrote; the gateway clock starts from the latest of them',
    )
    runs?.noteSure(false, clock.now())
  }

  stop(): void {
    this.#running = false
    this.#options.clock.onRead(undefined)
    for (const timer of [this.#checkTimer, this.#syncTimer, this.#holdTimer, this.#firstReadingTimer]) this.#options.clock.clearTimeout(timer)
  }

  /** Resolves once a mend under way has finished (tests, callers that need settled times). */
  async settled(): Promise<void> {
    while (this.#mending) await this.#mending
  }

  /**
   * Compares the system clock with the gateway's; a step starts one mend. Once the system
   * has said its clock is synchronised, the gateway's clock (which then runs on the
   * monotonic clock) is right: a step away from it is not followed (held) until the system
   * says synchronised again; the times taken meanwhile stay right.
   */
  check(): void {
    if (this.#mending || !this.#running || this.#checking) return
    this.#checking = true
    try {
      this.#check()
    } finally {
      this.#checking = false
    }
  }

  #check(): void {
    const { clock, thresholdMs } = this.#options
    const drift = clock.drift()
    if (Math.abs(drift - this.#expectedDrift) <= thresholdMs) {
      this.#followSystem = false
      return
    }
    this.#steppedSinceReading = true
    if (this.#timelineRight && !this.#followSystem) {
      if (!this.#holding)
        this.#options.log.warn(
          { shiftSeconds: Math.round((drift - this.#expectedDrift) / 1000) },
          'the system clock was stepped away from a synchronised time; the gateway keeps its clock until the system says it is synchronised again',
        )
      this.#holding = true
      this.#expectedDrift = drift
      void this.#readSync()
      return
    }
    const follow = this.#followSystem
    this.#followSystem = false
    this.#holding = false
    let shiftMs = Math.round(drift)
    // Not behind the mark, unless the system says it is synchronised (clock.now() is safe
    // here: a check started from it is not started again).
    let behind: ClockState['behind'] = null
    if (!follow) {
      const highWater = this.#options.highWater?.() ?? 0
      const gatewayNow = clock.now()
      const behindMs = Math.round(highWater - (gatewayNow + drift))
      if (behindMs > thresholdMs) {
        shiftMs = Math.round(highWater - gatewayNow)
        behind = { highWater, behindMs }
        this.#options.log.warn(
          { behindSeconds: Math.round(behindMs / 1000), highWater: new Date(highWater).toISOString() },
          'the system clock was stepped behind the times the gateway already wrote; the gateway clock goes to the latest of them',
        )
      }
    }
    this.#options.log.warn(
      { shiftSeconds: Math.round(shiftMs / 1000) },
      'the system clock was stepped; moving the gateway clock and the times it stored by the same amount',
    )
    this.#runMend(shiftMs, 'system', () => {
      this.#expectedDrift = behind ? drift - shiftMs : 0
      this.#setFromBoardAt = null
      this.#behind = behind
    })
    // A step usually comes with synchronisation: ask at once rather than at the next poll.
    void this.#readSync()
  }

  /**
   * A signed-in board sets the gateway's time: only while the system does not say its clock
   * is synchronised, within boardMaxShiftMs of the gateway's clock and not before
   * earliestBoardTime. The system clock is left alone (setting it needs root); the gateway
   * keeps the difference until the system clock is stepped.
   */
  async setFromBoard(timeMs: number, by: string | null): Promise<{ shiftMs: number }> {
    const { clock, boardMaxShiftMs } = this.#options
    if (this.#sync.state === 'synchronized') {
      throw new DomainError('SETTINGS_VALUE_INVALID', `time: the system clock is synchronised (${this.#sync.source}); the gateway follows it`)
    }
    if (!Number.isFinite(timeMs) || timeMs < earliestBoardTime) throw new DomainError('SETTINGS_VALUE_INVALID', 'time: not a plausible time')
    // Inline, so nothing can start another mend between the last check and this one.
    while (this.#mending) await this.#mending
    const shiftMs = Math.round(timeMs - clock.now())
    if (Math.abs(shiftMs) > boardMaxShiftMs) {
      throw new DomainError('SETTINGS_VALUE_INVALID', `time: more than ${Math.round(boardMaxShiftMs / 86_400_000)} days from the gateway's clock`)
    }
    this.#options.log.warn(
      { shiftSeconds: Math.round(shiftMs / 1000), tokenName: by },
      'a board set the gateway clock; moving the times it stored by the same amount',
    )
    this.#runMend(shiftMs, 'board', () => {
      this.#timelineRight = false
      this.#holding = false
      this.#expectedDrift -= shiftMs
      this.#setFromBoardAt = clock.now()
      this.#behind = null
    })
    await this.settled()
    return { shiftMs }
  }

  /** Whether deliveries checked against the receiver's clock may go now. */
  trusted(): boolean {
    if (this.#mending || this.#awaitingFirstReading) return false
    if (this.#sync.state !== 'unsynchronized' || this.#setFromBoardAt !== null) return true
    return this.#holdExpired
  }

  state(): ClockState {
    const { state, source } = this.#sync
    return {
      synchronized: state === 'unknown' ? null : state === 'synchronized',
      source,
      lastJump: this.#lastJump,
      setFromBoardAt: this.#setFromBoardAt,
      holdingDeliveries: !this.trusted(),
      behind: this.#behind,
      ordersOnUnsureClock: this.#options.ordersOnUnsureClock?.() ?? 0,
    }
  }

  /**
   * Whether the gateway's clock is known right: the system says synchronised (and it did
   * not start behind). Times taken so are never moved by a later step (lib/orders/stamps.ts).
   */
  right(): boolean {
    return this.#timelineRight && !this.#behind && !this.#steppedSinceReading && !this.#mending
  }

  /**
   * Whether this run's clock is not known wrong: right, or neither said unsynchronised
   * (unless a board set it) nor started behind.
   */
  sure(): boolean {
    if (this.right()) return true
    if (this.#behind) return false
    return this.#sync.state !== 'unsynchronized' || this.#setFromBoardAt !== null
  }

  #runMend(shiftMs: number, cause: ClockJump['cause'], after: () => void): void {
    const { clock, mend, log } = this.#options
    const run = mend(shiftMs, cause)
      .then(() => {
        after()
        this.#options.runs?.shifted(shiftMs)
        this.#notedSynchronized = false
        const jump: ClockJump = { at: clock.now(), shiftMs, cause }
        this.#lastJump = jump
        this.#events.emit('jumped', jump)
      })
      .catch((error: unknown) => {
        // Storage refused a write: what is in memory was moved, the rest follows at the
        // next write of each order (history rows keep their times).
        log.error({ err: error }, 'mending the clock step failed')
      })
      .finally(() => {
        if (this.#mending === run) this.#mending = undefined
        this.#noteTrust()
      })
    this.#mending = run
    this.#noteTrust()
  }

  async #readSync(): Promise<void> {
    let reading: SyncReading
    try {
      reading = await this.#options.readSync()
    } catch {
      reading = { state: 'unknown', source: 'none' }
    }
    if (!this.#running) return
    // Synchronised wins: what a board set, a high-water mark or a held step said gives way to it.
    if (reading.state === 'synchronized') {
      this.#expectedDrift = 0
      this.#followSystem = true
      this.#holding = false
      this.#timelineRight = true
    } else {
      this.#notedSynchronized = false
    }
    // A step that came with synchronisation is mended before deliveries are let go.
    this.check()
    if (reading.state !== this.#sync.state) this.#options.log.info({ state: reading.state, source: reading.source }, 'system clock synchronisation')
    this.#sync = reading
    this.#steppedSinceReading = false
    this.#firstReadingDone()
    this.#options.clock.clearTimeout(this.#syncTimer)
    this.#syncTimer = this.#options.clock.setTimeout(() => void this.#readSync(), this.#options.syncCheckMs)
  }

  #firstReadingDone(): void {
    this.#awaitingFirstReading = false
    this.#options.clock.clearTimeout(this.#firstReadingTimer)
    this.#noteTrust()
  }

  /** Starts or ends the hold, and emits 'trusted' when deliveries may go again. */
  #noteTrust(): void {
    const { clock, holdMs, log } = this.#options
    this.#noteRun()
    const untrustedSystem = this.#sync.state === 'unsynchronized' && this.#setFromBoardAt === null
    if (untrustedSystem && this.#untrustedSince === undefined) {
      this.#untrustedSince = clock.monotonic()
      this.#holdExpired = false
      log.warn({ holdSeconds: Math.round(holdMs / 1000) }, 'the system clock is not synchronised: webhook deliveries wait for it')
      this.#holdTimer = clock.setTimeout(() => {
        this.#holdExpired = true
        log.warn('the system clock is still not synchronised: webhook deliveries go with the gateway clock as it is')
        this.#noteTrust()
      }, holdMs)
    } else if (!untrustedSystem && this.#untrustedSince !== undefined) {
      this.#untrustedSince = undefined
      this.#holdExpired = false
      clock.clearTimeout(this.#holdTimer)
    }
    const trusted = this.trusted()
    if (trusted && !this.#wasTrusted) this.#events.emit('trusted', undefined)
    this.#wasTrusted = trusted
    const right = this.right()
    if (right && !this.#wasRight) this.#events.emit('right', undefined)
    this.#wasRight = right
  }

  /** Keeps this run's trust and the high-water mark (clock-runs.ts) current; not while mending. */
  #noteRun(): void {
    const { runs, clock } = this.#options
    runs?.noteRight(this.right())
    if (!runs || this.#mending || !this.#running) return
    const now = clock.now()
    runs.noteSure(this.sure(), now)
    if (this.#sync.state === 'synchronized' && !this.#notedSynchronized) {
      this.#notedSynchronized = true
      runs.noteSynchronized(now)
    } else if (clock.monotonic() - this.#notedAt >= highWaterEveryMs) {
      runs.noteTime(now)
    } else {
      return
    }
    this.#notedAt = clock.monotonic()
  }

  #armCheck(): void {
    this.#checkTimer = this.#options.clock.setTimeout(() => {
      if (!this.#running) return
      this.check()
      this.#noteRun()
      this.#armCheck()
    }, this.#options.checkEveryMs)
  }
}

/** The state shown where no clock is watched (a test's hand-moved clock). */
export const unwatchedClockState: ClockState = {
  synchronized: null,
  source: 'none',
  lastJump: null,
  setFromBoardAt: null,
  holdingDeliveries: false,
  behind: null,
  ordersOnUnsureClock: 0,
}
