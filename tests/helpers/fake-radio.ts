// A Radio whose events the test fires by hand and whose commands it records.
import type { Clock } from '../../lib/kernel/clock.ts'
import type { Radio, RadioEvents, RadioInfo, RadioListener } from '../../lib/radio/radio.ts'

export class FakeRadio implements Radio {
  readonly kind = 'zigbee' as const
  up = true
  failCommands = false
  readonly permitJoins: { seconds: number; at: number }[] = []
  refreshed = 0
  #listeners = new Map<string, Set<(event: never) => void>>()
  readonly #clock: Clock

  constructor(clock: Clock) {
    this.#clock = clock
  }

  on<K extends keyof RadioEvents>(event: K, listener: RadioListener<K>): () => void {
    let set = this.#listeners.get(event)
    if (!set) this.#listeners.set(event, (set = new Set()))
    set.add(listener as (event: never) => void)
    return () => set.delete(listener as (event: never) => void)
  }

  emit<K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]): void {
    for (const listener of this.#listeners.get(event) ?? []) (listener as RadioListener<K>)(payload)
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
    return { kind: 'zigbee', up: this.up, eui64: '00:12:4b:00:01:02:03:04', channel: 20, panId: 0x1234, permitJoinUntil: until && until > this.#clock.now() ? until : null }
  }
}
