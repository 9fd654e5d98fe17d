// A Radio whose events the test fires by hand and whose commands it records.
import type { Clock } from '../../lib/kernel/clock.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { EventBus, type Listener, type Unsubscribe } from '../../lib/kernel/events.ts'
import type { Radio, RadioEvents, RadioInfo } from '../../lib/radio/radio.ts'

export class FakeRadio implements Radio {
  readonly kind = 'zigbee' as const
  up = true
  failCommands = false
  readonly permitJoins: { seconds: number; at: number }[] = []
  refreshed = 0
  readonly #events: EventBus<RadioEvents>
  readonly #clock: Clock

  /** With `log`, a failing listener is logged as a real radio logs it. */
  constructor(clock: Clock, log?: Logger) {
    this.#clock = clock
    this.#events = new EventBus(log)
  }

  on<K extends keyof RadioEvents>(event: K, listener: Listener<RadioEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  emit<K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]): void {
    this.#events.emit(event, payload)
  }

  setUp(up: boolean): void {
    this.up = up
    this.emit('status', { up })
  }

  async start() {}
  async stop() {}
  async page() {}
  async cancel() {}
  async permitJoin(seconds: number) {
    if (this.failCommands || !this.up) throw new Error('radio is down')
    this.permitJoins.push({ seconds, at: this.#clock.now() })
  }
  async refreshRepeaters() {
    this.refreshed++
  }
  async info(): Promise<RadioInfo> {
    const last = this.permitJoins.at(-1)
    const until = last && last.seconds > 0 ? last.at + last.seconds * 1000 : null
    return {
      kind: 'zigbee',
      up: this.up,
      eui64: '00:12:4b:00:01:02:03:04',
      channel: 20,
      panId: 0x1234,
      permitJoinUntil: until && until > this.#clock.now() ? until : null,
    }
  }
}
