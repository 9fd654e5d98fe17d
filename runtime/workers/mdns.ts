// Discovery: advertises `_tracker-http._tcp` on the HTTP port over mDNS (bonjour-service), so
// POS and kitchen-display apps find the gateway without typing an address. Off with
// config mdns.enabled = false. A failing advertisement is logged, never fatal: the API works
// without it.
import { Bonjour } from 'bonjour-service'
import type { Logger } from '../../lib/kernel/log.ts'
import type { Part } from '../wiring/lifecycle.ts'

export const serviceType = 'tracker-http'

export interface Advertisement {
  name: string
  type: string
  port: number
  txt: Record<string, string>
}

/** What the part needs of an mDNS responder; tests substitute their own. */
export interface MdnsPublisher {
  publish(advertisement: Advertisement): void
  close(): Promise<void>
}

export interface MdnsOptions {
  enabled: boolean
  port: () => number
  deviceId: string
  version: string
  log: Logger
  /** Default: bonjour-service on the standard mDNS port. */
  publisher?: () => MdnsPublisher
  /** multicast-dns options for the default publisher (tests use a private port). */
  bonjourOptions?: Record<string, unknown>
}

/** A gateway listening only on loopback cannot be reached by anyone it could advertise to. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host)
}

export function advertisement(options: Pick<MdnsOptions, 'port' | 'deviceId' | 'version'>): Advertisement {
  return {
    name: `Tracker Gateway ${options.deviceId}`,
    type: serviceType,
    port: options.port(),
    txt: { api: 'v1,v2', deviceId: options.deviceId, version: options.version, path: '/api/v2' },
  }
}

/** The parts of multicast-dns's responder that its own timers call. */
interface MulticastDns {
  update(): void
  send(value: unknown, rinfo?: unknown, cb?: (error?: Error | null) => void): void
  on(event: 'warning' | 'error', listener: (error: Error) => void): void
}

/**
 * multicast-dns re-reads the network interfaces every 5 s from a timer of its own and lets
 * any error escape it: with the descriptor table full, os.networkInterfaces() throws EMFILE
 * there and the process dies. Its entry points are wrapped so such an error is logged (once
 * until the responder works again) and the next tick simply tries again.
 */
export function guardResponder(mdns: MulticastDns, log: Logger): void {
  let failing = false
  const report = (error: unknown) => {
    if (!failing) log.warn({ err: error }, 'mDNS responder failing (retried every 5 s)')
    failing = true
  }
  const update = mdns.update.bind(mdns)
  mdns.update = () => {
    try {
      update()
      failing = false
    } catch (error) {
      report(error)
    }
  }
  const send = mdns.send.bind(mdns)
  mdns.send = (value, rinfo, cb) => {
    try {
      send(value, rinfo, cb)
    } catch (error) {
      report(error)
      if (typeof cb === 'function') cb(error as Error)
      else if (typeof rinfo === 'function') (rinfo as (error?: Error) => void)(error as Error)
    }
  }
  // 'error' without a listener would throw; 'warning' is an interface it could not join.
  mdns.on('error', report)
  mdns.on('warning', (error) => log.debug({ err: error }, 'mDNS warning'))
}

export function bonjourPublisher(log: Logger, bonjourOptions?: Record<string, unknown>): MdnsPublisher {
  const bonjour = new Bonjour(bonjourOptions as never, (error: unknown) => log.warn({ err: error }, 'mDNS error'))
  guardResponder((bonjour as unknown as { server: { mdns: MulticastDns } }).server.mdns, log)
  return {
    publish: (ad) => {
      const service = bonjour.publish({ ...ad, protocol: 'tcp' })
      service.on('error', (error: unknown) => log.warn({ err: error }, 'mDNS advertisement failed'))
    },
    close: () =>
      new Promise<void>((resolve) => {
        bonjour.unpublishAll(() => bonjour.destroy(() => resolve()))
      }),
  }
}

export function mdnsPart(options: MdnsOptions): Part {
  let publisher: MdnsPublisher | undefined
  return {
    name: 'mdns',
    start: async () => {
      if (!options.enabled) return
      try {
        publisher = (options.publisher ?? (() => bonjourPublisher(options.log, options.bonjourOptions)))()
        const ad = advertisement(options)
        publisher.publish(ad)
        options.log.info({ type: `_${ad.type}._tcp`, port: ad.port }, 'advertised over mDNS')
      } catch (error) {
        options.log.warn({ err: error }, 'mDNS advertisement unavailable')
      }
    },
    stop: async () => {
      await publisher?.close()
      publisher = undefined
    },
  }
}
