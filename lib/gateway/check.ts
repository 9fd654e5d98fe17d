// The connection check (GET /api/v2/gateway/check?timeout=S): does the radio answer within
// S seconds, can storage take a write, and (when activated) does the cloud service answer.
import type { Clock } from '../kernel/clock.ts'
import type { RadioInfo } from '../radio/radio.ts'
import type { Collection } from '../store/db.ts'
import type { CloudStatus } from './cloud.ts'
import type { CheckItem, CheckReport } from './types.ts'
export type { CheckItem, CheckReport } from './types.ts'

export const defaultCheckTimeoutSeconds = 5
export const maxCheckTimeoutSeconds = 254

export interface CheckDeps {
  clock: Clock
  radioInfo(): Promise<RadioInfo>
  collection: Collection<{ key: string; at: number }>
  cloudActivated(): boolean
  probeCloud(timeoutMs: number): Promise<CloudStatus>
}

const timedOut = Symbol('timed out')

export class ConnectionCheck {
  readonly #deps: CheckDeps

  constructor(deps: CheckDeps) {
    this.#deps = deps
  }

  /** Waits at most `ms` on the injected clock; 0 means "only what is known right now". */
  async #within<T>(ms: number, work: Promise<T>): Promise<T | typeof timedOut> {
    let timer: ReturnType<Clock['setTimeout']> | undefined
    const deadline = new Promise<typeof timedOut>((resolve) => {
      timer = this.#deps.clock.setTimeout(() => resolve(timedOut), ms)
    })
    try {
      return await Promise.race([work, deadline])
    } finally {
      this.#deps.clock.clearTimeout(timer)
    }
  }

  async #radio(ms: number): Promise<CheckReport['radio']> {
    try {
      const info = await this.#within(ms, this.#deps.radioInfo())
      if (info === timedOut) return { ok: false, kind: 'unknown', detail: `no answer within ${ms / 1000} s` }
      return { ok: info.up, kind: info.kind, detail: info.up ? `up on channel ${info.channel}${notAnswering(info)}` : 'radio is down' }
    } catch (error) {
      return { ok: false, kind: 'unknown', detail: `radio error: ${(error as Error).message}` }
    }
  }

  async #storage(): Promise<CheckItem> {
    try {
      await this.#deps.collection.update({ key: 'check' }, { key: 'check', at: this.#deps.clock.now() }, { upsert: true })
      return { ok: true, detail: 'writable' }
    } catch (error) {
      return { ok: false, detail: `not writable: ${(error as Error).message}` }
    }
  }

  async #cloud(ms: number): Promise<CheckReport['cloud']> {
    if (!this.#deps.cloudActivated()) return null
    const status = await this.#deps.probeCloud(Math.max(1, ms))
    return { ok: status.state === 'CONNECTED', state: status.state, detail: status.state === 'CONNECTED' ? 'reachable' : 'unreachable' }
  }

  async run(timeoutSeconds: number): Promise<CheckReport> {
    const ms = timeoutSeconds * 1000
    const [radio, storage, cloud] = await Promise.all([this.#radio(ms), this.#storage(), this.#cloud(ms)])
    return { ok: radio.ok && storage.ok && (cloud === null || cloud.ok), timeout: timeoutSeconds, radio, storage, cloud }
  }
}

/** The always-listening devices the radio could not reach, for the installer (docs/radio.md). */
function notAnswering(info: RadioInfo): string {
  const names = { repeater: 'repeater', unit: 'starter/clearing unit' }
  const list = (info.unavailable ?? []).map((device) => `${names[device.role]} ${device.address}`)
  return list.length ? `; not answering: ${list.join(', ')}` : ''
}
