// Discovery: advertises `_tracker-http._tcp` on the HTTP port over mDNS (bonjour-service), so
// POS and kitchen-display apps find the gateway without typing an address. Off with
// config mdns.enabled = false. A failing advertisement is logged, never fatal: the API works
// without it.
import { Bonjour } from 'bonjour-service'
import type { Logger } from '../lib/log.ts'
import type { Part } from './lifecycle.ts'

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

export function bonjourPublisher(log: Logger, bonjourOptions?: Record<string, unknown>): MdnsPublisher {
  const bonjour = new Bonjour(bonjourOptions as never, (error: unknown) => log.warn({ err: error }, 'mDNS error'))
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
