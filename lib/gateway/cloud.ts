// Activation with the cloud service (POST|GET /api/v2/gateway/activate). The service is an
// HTTP endpoint named in config (cloud.url); with none configured every code is refused
// (-19). Activation is persisted; the link state is probed on demand.
//
// Protocol (documented in docs/api.md): POST <cloud.url> with JSON {deviceCode, deviceId,
// product, version}. 2xx = accepted, optionally answering {accountName, locationName};
// any other answer, or no answer, = refused. The link probe is a HEAD <cloud.url>: any HTTP
// answer below 500 means reachable.
import { DomainError } from '../kernel/errors.ts'
import type { Clock } from '../kernel/clock.ts'
import type { Logger } from '../kernel/log.ts'
import type { Collection } from '../store/db.ts'
import type { CloudStatus } from './types.ts'
export type { CloudState, CloudStatus } from './types.ts'

export const deviceCodePattern = /^[0-9]{3}-[0-9]{4}-[0-9]{3}$/

export interface CloudRecord {
  key: 'cloud'
  deviceCode: string
  accountName: string | null
  locationName: string | null
  activatedAt: number
  /** Outcome of the latest contact with the service. */
  lastState: 'ACTIVATED' | 'CONNECTED' | 'UNREACHABLE'
  lastContactAt: number | null
}

export interface CloudDeps {
  url: string | null
  collection: Collection<CloudRecord>
  clock: Clock
  log: Logger
  deviceId: string
  version: string
  timeoutMs?: number
  fetch?: typeof fetch
}

const defaultTimeoutMs = 5000

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, 128) : null
}

export class CloudActivation {
  readonly #deps: CloudDeps
  #record: CloudRecord | null

  private constructor(deps: CloudDeps, record: CloudRecord | null) {
    this.#deps = deps
    this.#record = record
  }

  static async open(deps: CloudDeps): Promise<CloudActivation> {
    const stored = await deps.collection.findOne({ key: 'cloud' })
    // After a restart the link is unknown until the next probe: ACTIVATED, not CONNECTED.
    const record = stored ? { ...(({ _id, ...rest }) => rest as CloudRecord)(stored), lastState: 'ACTIVATED' as const } : null
    return new CloudActivation(deps, record)
  }

  get #fetch(): typeof fetch {
    return this.#deps.fetch ?? fetch
  }

  get #timeoutMs(): number {
    return this.#deps.timeoutMs ?? defaultTimeoutMs
  }

  /** Validates the code (-18 missing, -17 malformed), then asks the service. */
  async activate(deviceCode: unknown): Promise<{ alreadyActivated: boolean; status: CloudStatus }> {
    if (deviceCode === undefined || deviceCode === null || deviceCode === '') throw new DomainError('DEVICE_CODE_MISSING')
    if (typeof deviceCode !== 'string' || !deviceCodePattern.test(deviceCode)) throw new DomainError('DEVICE_CODE_MALFORMED')
    if (this.#record) return { alreadyActivated: true, status: this.status() }
    const url = this.#deps.url
    if (!url) throw new DomainError('DEVICE_CODE_REFUSED', 'no cloud service is configured')
    let response: Response
    try {
      response = await this.#fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ deviceCode, deviceId: this.#deps.deviceId, product: 'Tracker Gateway', version: this.#deps.version }),
        signal: AbortSignal.timeout(this.#timeoutMs),
        redirect: 'error',
      })
    } catch (error) {
      this.#deps.log.warn({ err: error }, 'cloud service unreachable during activation')
      throw new DomainError('DEVICE_CODE_REFUSED', 'the cloud service is unreachable')
    }
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>
    if (!response.ok) {
      const reason = text(answer?.message)
      throw new DomainError('DEVICE_CODE_REFUSED', reason ?? `the cloud service answered ${response.status}`)
    }
    const now = this.#deps.clock.now()
    const record: CloudRecord = {
      key: 'cloud',
      deviceCode,
      accountName: text(answer?.accountName),
      locationName: text(answer?.locationName),
      activatedAt: now,
      lastState: 'CONNECTED',
      lastContactAt: now,
    }
    await this.#deps.collection.update({ key: 'cloud' }, { ...record }, { upsert: true })
    this.#record = record
    return { alreadyActivated: false, status: this.status() }
  }

  /** The state as last known, without contacting the service. */
  status(): CloudStatus {
    const record = this.#record
    return {
      state: record ? record.lastState : 'NOT_CONFIGURED',
      configured: this.#deps.url !== null,
      activated: record !== null,
      accountName: record?.accountName ?? null,
      locationName: record?.locationName ?? null,
      activatedAt: record?.activatedAt ?? null,
      lastContactAt: record?.lastContactAt ?? null,
    }
  }

  /** Contacts the service (when activated) and records whether it answered. */
  async probe(timeoutMs = this.#timeoutMs): Promise<CloudStatus> {
    const record = this.#record
    if (!record) return this.status()
    let reachable = false
    if (this.#deps.url) {
      try {
        const response = await this.#fetch(this.#deps.url, { method: 'HEAD', signal: AbortSignal.timeout(Math.max(1, timeoutMs)), redirect: 'error' })
        reachable = response.status < 500
      } catch {
        reachable = false
      }
    }
    const next: CloudRecord = {
      ...record,
      lastState: reachable ? 'CONNECTED' : 'UNREACHABLE',
      lastContactAt: reachable ? this.#deps.clock.now() : record.lastContactAt,
    }
    if (next.lastState !== record.lastState || next.lastContactAt !== record.lastContactAt) {
      await this.#deps.collection.update({ key: 'cloud' }, { ...next }, { upsert: true })
    }
    this.#record = next
    return this.status()
  }
}
