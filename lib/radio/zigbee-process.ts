// The Zigbee radio as the gateway sees it: a supervised child process (zigbee-child.ts) that
// owns zigbee-herdsman and the serial port, as zigbee2mqtt owns its process. herdsman's
// module state, an adapter's timers and a port left locked by a failed start all end with
// that process; nothing here loads herdsman. A failed start, an adapter disconnect, a
// failed coordinator check or a crash ends the child; it is started again with backoff while
// HTTP, WebSocket and orders carry on, and info() says why the radio is down. Pages still
// within their lease are kept here and sent again when a new child is up; a 'status'
// {up: true} event lets the paging scheduler and pairing windows re-apply theirs.
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Clock, TimerHandle } from '../kernel/clock.ts'
import { monotonicNow } from '../kernel/gateway-clock.ts'
import { EventBus, type Listener, type Subscribable, type Unsubscribe } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import { unknownEui64, type Radio, type RadioEvents, type RadioInfo } from './radio.ts'
import type { ZigbeeRadioSettings } from './zigbee.ts'
import { relayChildLog } from './zigbee-child-log.ts'
import { radioProcessNodeFlags } from './zigbee-process-flags.ts'
import type { InterviewResult, NetworkMap, RadioDevice, RadioUpkeep } from './upkeep.ts'
import { fromWireError, zigbeeRadioSettingKeys, type ChildMessage, type ParentMessage, type RadioCall, type ZigbeeChildOptions } from './zigbee-ipc.ts'

/** The part of the settings service the radio reads: the preset letter picks the channel. */
export interface ChannelSource extends Subscribable<{ changed: number }> {
  channel(): number
}

/** A channel that never moves (the probe, a radio run on its own). */
export function fixedChannel(channel: number): ChannelSource {
  return { channel: () => channel, on: () => () => {} }
}

export interface ZigbeeProcessOptions extends ZigbeeRadioSettings {
  channel: ChannelSource
  clock: Clock
  log: Logger
  /** Delays before each restart after a failure, in ms; the last repeats. */
  restartDelaysMs?: number[]
  /** start() returns after the first attempt's outcome or this long, whichever is first (10 s). */
  startWaitMs?: number
  /** A radio process not up after this long is ended and counted as a failed start. */
  startTimeoutMs?: number
  /** How long a stopping radio process may take before it is killed. */
  stopTimeoutMs?: number
  /** How long a call into the radio process may take. */
  callTimeoutMs?: number
  /** Extra Node flags for the radio process (after this process's own and radioProcessNodeFlags'). */
  execArgv?: string[]
  env?: NodeJS.ProcessEnv
}

export const defaultRestartDelaysMs = [1000, 2000, 5000, 10_000, 30_000, 60_000]
/**
 * A healthy stick is up within a few seconds, before the paging scheduler resumes; a dead
 * one holds the gateway's start-up (HTTP) no longer than this.
 */
const defaultStartWaitMs = 10_000
/** Up this long (one coordinator check), a radio that drops starts again from the first delay. */
const stableUpMs = 60_000
/** info() serves the gateway status: it never waits long for a busy radio process. */
const infoTimeoutMs = 2000
/** Interviews, removals and the network map talk to devices: longer than a page. */
const upkeepCallTimeoutMs = 120_000
const childModule = fileURLToPath(new URL('./zigbee-child.ts', import.meta.url))

/** Why the radio is down, how often it was restarted, when it is tried next. */
export type RadioSupervision = NonNullable<RadioInfo['supervision']>

interface Pending {
  resolve(value: unknown): void
  reject(error: Error): void
  timer: TimerHandle
}

interface Attempt {
  child: ChildProcess
  up: boolean
  /** When it came up (gateway clock): a radio up for a while starts again from the first delay. */
  upAt?: number
  /** The child's own account of why it ends, when it gave one. */
  fatal?: string
  /** Ended on purpose (stop, channel change): no restart. */
  planned: boolean
  exited: Promise<void>
  settled: Promise<void>
  startTimer?: TimerHandle
}

export class ZigbeeProcessRadio implements Radio, RadioUpkeep {
  readonly kind = 'zigbee' as const
  readonly #options: ZigbeeProcessOptions
  readonly #clock: Clock
  readonly #log: Logger
  readonly #events: EventBus<RadioEvents>
  readonly #pending = new Map<number, Pending>()
  /** Pages still within their lease, by address: sent again when a new radio process is up. */
  readonly #leases = new Map<string, number>()
  #attempt: Attempt | undefined
  #running = false
  #up = false
  #downDetail: string | undefined
  #failures = 0
  #restarts = 0
  #lastError: string | null = null
  #nextAttemptAt: number | null = null
  #retryTimer: TimerHandle | undefined
  #info: RadioInfo
  #rss: number | null = null
  #nextCallId = 1
  #unsubscribeChannel: (() => void) | undefined

  constructor(options: ZigbeeProcessOptions) {
    this.#options = options
    this.#clock = options.clock
    this.#log = options.log.child({ part: 'zigbee' })
    this.#events = new EventBus(this.#log)
    this.#info = { kind: 'zigbee', up: false, eui64: unknownEui64, channel: options.channel.channel(), panId: 0, permitJoinUntil: null }
  }

  /** The radio process's id, while one runs. */
  get pid(): number | undefined {
    return this.#attempt?.child.pid
  }

  on<K extends keyof RadioEvents>(event: K, listener: Listener<RadioEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  /** Starts the radio process; never fails the gateway: a radio that cannot start is retried. */
  async start(): Promise<void> {
    if (this.#running) return
    this.#running = true
    this.#unsubscribeChannel = this.#options.channel.on('changed', () => this.#channelChanged())
    const attempt = this.#spawn()
    let timer: TimerHandle | undefined
    const waited = new Promise<void>((resolve) => (timer = this.#clock.setTimeout(resolve, this.#options.startWaitMs ?? defaultStartWaitMs)))
    await Promise.race([attempt.settled, waited])
    this.#clock.clearTimeout(timer)
  }

  /** Stops herdsman cleanly and waits for the radio process to end (killed if it hangs). */
  async stop(): Promise<void> {
    this.#running = false
    this.#unsubscribeChannel?.()
    this.#clock.clearTimeout(this.#retryTimer)
    this.#retryTimer = undefined
    this.#nextAttemptAt = null
    await this.#end('stopped')
  }

  #spawn(): Attempt {
    this.#nextAttemptAt = null
    const channel = this.#options.channel.channel()
    const settings = Object.fromEntries(zigbeeRadioSettingKeys.map((key) => [key, this.#options[key]])) as unknown as ZigbeeRadioSettings
    const childOptions: ZigbeeChildOptions = { ...settings, channel, logLevel: this.#log.level }
    const given = this.#options.execArgv ?? []
    const env = this.#options.env ?? process.env
    const own = radioProcessNodeFlags(childModule, [...process.execArgv, ...given], env.NODE_OPTIONS)
    const child = fork(childModule, [JSON.stringify(childOptions)], {
      execArgv: [...process.execArgv, ...own, ...given],
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let settle!: () => void
    let exited!: () => void
    const attempt: Attempt = {
      child,
      up: false,
      planned: false,
      settled: new Promise((resolve) => (settle = resolve)),
      exited: new Promise((resolve) => (exited = resolve)),
    }
    this.#attempt = attempt
    const startTimeoutMs = this.#options.startTimeoutMs ?? 120_000
    attempt.startTimer = this.#clock.setTimeout(() => {
      attempt.fatal = `the radio did not start within ${startTimeoutMs / 1000} s`
      child.kill('SIGKILL')
    }, startTimeoutMs)
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'up') settle()
      this.#received(attempt, message)
    })
    const ended = (code: number | null, signal: NodeJS.Signals | null) => {
      settle()
      exited()
      this.#exited(attempt, code, signal)
    }
    child.on('error', (error) => {
      attempt.fatal ??= `radio process: ${error.message}`
      // A process that could not be started at all never emits 'exit'.
      if (child.pid === undefined) ended(null, null)
    })
    child.on('exit', ended)
    this.#log.info({ pid: child.pid, channel }, 'radio process started')
    return attempt
  }

  /**
   * The child stamps events with the system clock; the gateway's clock may differ from it
   * (a step not yet mended, a time set from a board: lib/kernel/clock-watch.ts), and an
   * order's times must be on the gateway's. Events cross the IPC channel within
   * milliseconds, so the time of arrival stands in for the child's.
   */
  #restamped(payload: unknown): unknown {
    if (payload === null || typeof payload !== 'object' || !('at' in payload) || typeof payload.at !== 'number') return payload
    const at = this.#clock.now()
    // A repeater's lastSeen (herdsman's, on the child's clock) is carried over the same way.
    if ('lastSeen' in payload && typeof payload.lastSeen === 'number') return { ...payload, at, lastSeen: payload.lastSeen + (at - payload.at) }
    return { ...payload, at }
  }

  #received(attempt: Attempt, message: ChildMessage): void {
    switch (message.type) {
      case 'log':
        return relayChildLog(this.#log, message.line, attempt.child.pid)
      case 'event':
        this.#events.emit(message.name, this.#restamped(message.payload) as never)
        return
      case 'result': {
        const pending = this.#pending.get(message.id)
        if (!pending) return
        this.#pending.delete(message.id)
        this.#clock.clearTimeout(pending.timer)
        if (message.error) pending.reject(fromWireError(message.error))
        else pending.resolve(message.value)
        return
      }
      case 'fatal':
        attempt.fatal = message.reason
        return
      case 'memory':
        this.#rss = message.rss
        return
      case 'up':
        this.#clock.clearTimeout(attempt.startTimer)
        attempt.up = true
        attempt.upAt = this.#clock.now()
        this.#info = message.info
        this.#rss = message.rss
        this.#log.info({ pid: attempt.child.pid, eui64: message.info.eui64, channel: message.info.channel }, 'radio up')
        this.#setUp(true)
        void this.#reapplyLeases()
    }
  }

  #exited(attempt: Attempt, code: number | null, signal: NodeJS.Signals | null): void {
    this.#clock.clearTimeout(attempt.startTimer)
    if (this.#attempt === attempt) this.#attempt = undefined
    this.#rss = null
    for (const [id, pending] of this.#pending) {
      this.#clock.clearTimeout(pending.timer)
      pending.reject(new Error('the radio process ended'))
      this.#pending.delete(id)
    }
    if (attempt.planned) return
    // Backoff starts again only for a radio that stayed up past a coordinator check: a stick
    // that drops each time it comes up is not restarted (110 MB of herdsman) every second.
    if (attempt.upAt !== undefined && this.#clock.now() - attempt.upAt >= stableUpMs) this.#failures = 0
    const reason = attempt.fatal ?? `radio process exited (${signal ? `signal ${signal}` : `code ${code}`})`
    this.#lastError = reason
    this.#log.warn({ pid: attempt.child.pid, code, signal, reason }, 'radio process ended')
    this.#setUp(false, reason)
    this.#scheduleRestart()
  }

  #scheduleRestart(): void {
    if (!this.#running || this.#retryTimer) return
    const delays = this.#options.restartDelaysMs ?? defaultRestartDelaysMs
    const delay = delays[Math.min(this.#failures, delays.length - 1)]
    this.#failures++
    this.#nextAttemptAt = this.#clock.now() + delay
    this.#retryTimer = this.#clock.setTimeout(() => {
      this.#retryTimer = undefined
      if (!this.#running) return
      this.#restarts++
      this.#spawn()
    }, delay)
  }

  /** Ends the current radio process on purpose: a clean stop first, SIGKILL if it hangs. */
  async #end(detail: string): Promise<void> {
    const attempt = this.#attempt
    if (this.#up || attempt) this.#setUp(false, detail)
    if (!attempt) return
    attempt.planned = true
    if (attempt.child.connected) attempt.child.send({ type: 'stop' } satisfies ParentMessage)
    else attempt.child.kill('SIGKILL')
    let timer: TimerHandle | undefined
    const late = new Promise<'late'>((resolve) => (timer = this.#clock.setTimeout(() => resolve('late'), this.#options.stopTimeoutMs ?? 15_000)))
    if ((await Promise.race([attempt.exited, late])) === 'late') {
      this.#log.warn({ pid: attempt.child.pid }, 'radio process did not stop in time; killed')
      attempt.child.kill('SIGKILL')
      await attempt.exited
    }
    this.#clock.clearTimeout(timer)
  }

  async #channelChanged(): Promise<void> {
    const wanted = this.#options.channel.channel()
    if (!this.#running || (wanted === this.#info.channel && this.#attempt)) return
    this.#log.info({ from: this.#info.channel, to: wanted }, 'zigbee channel changed by the zigbeePreset setting; restarting the radio')
    this.#clock.clearTimeout(this.#retryTimer)
    this.#retryTimer = undefined
    // Told to the running network first, while it still listens on the old channel.
    if (this.#up)
      await this.#call('announceChannel', [wanted]).catch((error: unknown) => this.#log.warn({ err: error }, 'announcing the channel change failed'))
    this.#info = { ...this.#info, channel: wanted }
    await this.#end('changing channel')
    if (this.#running) this.#spawn()
  }

  /** A status event on every change, and on every new reason while down. */
  #setUp(up: boolean, detail?: string): void {
    const changed = up !== this.#up || (!up && detail !== this.#downDetail)
    this.#up = up
    this.#downDetail = up ? undefined : detail
    if (changed) this.#events.emit('status', detail ? { up, detail } : { up })
  }

  #call(method: RadioCall, args: unknown[], timeoutMs?: number): Promise<unknown> {
    const attempt = this.#attempt
    if (!attempt?.up || !this.#up || !attempt.child.connected) return Promise.reject(new Error('zigbee radio is down'))
    const id = this.#nextCallId++
    const ms = timeoutMs ?? this.#options.callTimeoutMs ?? 30_000
    return new Promise((resolve, reject) => {
      const timer = this.#clock.setTimeout(() => {
        this.#pending.delete(id)
        reject(new Error(`the radio process did not answer ${method} within ${ms} ms`))
      }, ms)
      this.#pending.set(id, { resolve, reject, timer })
      attempt.child.send({ type: 'call', id, method, args } satisfies ParentMessage)
    })
  }

  async page(address: string, leaseSeconds: number): Promise<void> {
    if (!Number.isInteger(leaseSeconds) || leaseSeconds < 1 || leaseSeconds > 0xfffe) {
      throw new RangeError('leaseSeconds must be an integer from 1 to 65534')
    }
    // Remembered even when the send fails: the lease is sent again when the radio is back.
    // On the monotonic clock: a step of the wall clock must not lengthen or cut a lease.
    this.#leases.set(address, monotonicNow(this.#clock) + leaseSeconds * 1000)
    await this.#call('page', [address, leaseSeconds])
  }

  async cancel(address: string): Promise<void> {
    this.#leases.delete(address)
    await this.#call('cancel', [address])
  }

  async #reapplyLeases(): Promise<void> {
    const now = monotonicNow(this.#clock)
    const sends: Promise<void>[] = []
    for (const [address, until] of [...this.#leases]) {
      const remaining = Math.floor((until - now) / 1000)
      if (remaining < 1) {
        this.#leases.delete(address)
        continue
      }
      sends.push(
        this.#call('page', [address, remaining]).then(
          () => undefined,
          (error: unknown) => this.#log.warn({ err: error, address }, 're-sending a page after the radio came back failed'),
        ),
      )
    }
    // Together: a tracker out of reach must not hold the others for its send timeout.
    await Promise.all(sends)
  }

  async permitJoin(seconds: number): Promise<void> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 254) throw new RangeError('seconds must be an integer from 0 to 254')
    await this.#call('permitJoin', [seconds])
    this.#info = { ...this.#info, permitJoinUntil: seconds > 0 ? this.#clock.now() + seconds * 1000 : null }
  }

  /** See ZigbeeRadio.backupCoordinator; false while no radio process is up. */
  async backupCoordinator(): Promise<boolean> {
    if (!this.#up) return false
    return (await this.#call('backupCoordinator', [], 60_000)) === true
  }

  /** Pings every repeater (answers are announced as repeaterJoined); nothing while down. */
  async refreshRepeaters(): Promise<void> {
    if (this.#up) await this.#call('refreshRepeaters', [])
  }

  // Upkeep (lib/radio/upkeep.ts), answered by the radio process: an interview may take a
  // while (every endpoint's descriptors), the map one neighbour table per router.
  async devices(): Promise<RadioDevice[]> {
    return (await this.#call('devices', [])) as RadioDevice[]
  }

  async interview(address: string): Promise<InterviewResult> {
    return (await this.#call('interview', [address], upkeepCallTimeoutMs)) as InterviewResult
  }

  async remove(address: string, force: boolean): Promise<{ left: boolean }> {
    return (await this.#call('remove', [address, force], upkeepCallTimeoutMs)) as { left: boolean }
  }

  async networkMap(): Promise<NetworkMap> {
    return (await this.#call('networkMap', [], upkeepCallTimeoutMs)) as NetworkMap
  }

  supervision(): RadioSupervision {
    return {
      lastError: this.#lastError,
      restarts: this.#restarts,
      nextAttemptAt: this.#nextAttemptAt,
      rss: this.#rss,
      pid: this.#attempt?.child.pid ?? null,
    }
  }

  /** The radio process's own account while it is up (devices change), else the last known. */
  async info(): Promise<RadioInfo> {
    if (this.#up) {
      try {
        this.#info = (await this.#call('info', [], infoTimeoutMs)) as RadioInfo
      } catch {
        // A busy or ending radio process: the last account will do.
      }
    }
    const joinOpen = this.#info.permitJoinUntil !== null && this.#info.permitJoinUntil > this.#clock.now()
    return {
      ...this.#info,
      up: this.#up,
      permitJoinUntil: this.#up && joinOpen ? this.#info.permitJoinUntil : null,
      supervision: this.supervision(),
    }
  }
}
