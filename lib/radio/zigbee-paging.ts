// Paging on Zigbee: genIdentify identify with the lease as its duration (0 stops it). Pages
// still within their lease are remembered, so they can be sent again with what is left of
// the lease when the adapter comes back.
// Each send is bounded: herdsman's send recovery is off (zstack would otherwise retry up to
// 5 times with route discovery, tens of seconds for a sleepy tracker), the send waits for
// the tracker's ZCL Default Response at most commandTimeoutMs (enforced here too, on the
// gateway's clock, whatever the adapter does), and a Default Response with a failure status
// is a failed page: herdsman's Endpoint.command returns it without checking it.
import type { Clock } from '../kernel/clock.ts'
import type { Logger } from '../kernel/log.ts'
import type { ZigbeeDevice } from './zigbee-device-kinds.ts'

export interface ZigbeePagerOptions {
  clock: Clock
  log: Logger
  /** The device at an API address; throws when the radio is down or the device unknown. */
  device(address: string): ZigbeeDevice
  /** How long a page or cancel waits for the tracker's acknowledgement. */
  commandTimeoutMs?: number
}

/** Just above the 7.68 s a parent holds a frame for a sleepy tracker. */
const defaultCommandTimeoutMs = 8000
/** How long past its own timeout a send may take before it is given up here. */
const timeoutGraceMs = 1000

/** The tracker answered, with a status other than SUCCESS. */
export class PageRefusedError extends Error {
  readonly statusCode: number
  constructor(address: string, seconds: number, statusCode: number) {
    super(`zigbee device ${address} refused identify ${seconds} s (ZCL status 0x${statusCode.toString(16).padStart(2, '0')})`)
    this.name = 'PageRefusedError'
    this.statusCode = statusCode
  }
}

export class ZigbeePager {
  readonly #options: ZigbeePagerOptions

  constructor(options: ZigbeePagerOptions) {
    this.#options = options
  }

  async page(address: string, leaseSeconds: number): Promise<void> {
    if (!Number.isInteger(leaseSeconds) || leaseSeconds < 1 || leaseSeconds > 0xfffe) {
      throw new RangeError('leaseSeconds must be an integer from 1 to 65534')
    }
    // Leases live on the gateway side (zigbee-process.ts), which re-sends them when a new
    // radio process is up: this process dies with the adapter.
    await this.#identify(address, leaseSeconds)
  }

  async cancel(address: string): Promise<void> {
    await this.#identify(address, 0)
  }

  async #identify(address: string, seconds: number): Promise<void> {
    const device = this.#options.device(address)
    const endpoint = device.endpoints.find((e) => e.supportsInputCluster('genIdentify')) ?? device.endpoints[0]
    if (!endpoint) throw new Error(`zigbee device ${address} has no endpoint`)
    const timeout = this.#options.commandTimeoutMs ?? defaultCommandTimeoutMs
    const send = endpoint.command(
      'genIdentify',
      'identify',
      { identifytime: seconds },
      {
        sendPolicy: 'immediate',
        disableRecovery: true,
        timeout,
      },
    )
    const answer = await this.#bounded(send, timeout + timeoutGraceMs, address)
    // identify has no response of its own: what comes back is the Default Response.
    const status = (answer as { statusCode?: unknown } | undefined)?.statusCode
    if (typeof status === 'number' && status !== 0) throw new PageRefusedError(address, seconds, status)
  }

  #bounded<T>(send: Promise<T>, ms: number, address: string): Promise<T> {
    const { clock } = this.#options
    let timer: ReturnType<Clock['setTimeout']> | undefined
    const expiry = new Promise<never>((_, reject) => {
      timer = clock.setTimeout(() => reject(new Error(`zigbee device ${address}: no answer within ${ms} ms`)), ms)
    })
    // A send given up here may still settle later: nobody waits for it any more.
    send.catch(() => {})
    return Promise.race([send, expiry]).finally(() => clock.clearTimeout(timer))
  }
}
