// Discovery: advertises `_tracker-http._tcp` on the HTTP port over mDNS (bonjour-service), so
// POS and kitchen-display apps find the gateway without typing an address, and, with HTTPS on,
// `_tracker-https._tcp` on the HTTPS port with the certificate's public-key pin, so a client
// can go straight to HTTPS and check what it is talking to. Off with config mdns.enabled = false. A failing advertisement is logged, never fatal: the API works
// without it. bonjour-service (and multicast-dns, dns-packet: about 20 modules) is imported
// when advertising starts, so a gateway with mDNS off (or on loopback) never loads it.
import type { Logger } from '../../lib/kernel/log.ts'
import type { TlsStatus } from '../../lib/gateway/tls-status.ts'
import type { Part } from '../wiring/lifecycle.ts'

export const serviceType = 'tracker-http'
export const secureServiceType = 'tracker-https'

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
  /** What HTTPS serves (null or absent: HTTPS is off, only HTTP is advertised). */
  tls?: () => TlsStatus | null
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

/**
 * What is advertised: the HTTP service, and with HTTPS on, the HTTPS one too. Both carry the
 * other's port where there is one. The HTTPS one names the SHA-256 pin of the certificate's
 * public key (`spki`, base64), not the certificate's fingerprint: the box reissues its
 * certificate with the same key when its names or addresses change, so the pin stays true
 * for as long as the advertisement does.
 */
export function advertisements(options: Pick<MdnsOptions, 'port' | 'deviceId' | 'version' | 'tls'>): Advertisement[] {
  const name = `Tracker Gateway ${options.deviceId}`
  const txt = { api: 'v1,v2', deviceId: options.deviceId, version: options.version, path: '/api/v2' }
  const tls = options.tls?.()
  const http: Advertisement = { name, type: serviceType, port: options.port(), txt: tls ? { ...txt, https: String(tls.port) } : txt }
  if (!tls) return [http]
  return [http, { name, type: secureServiceType, port: tls.port, txt: { ...txt, http: String(http.port), spki: tls.spkiSha256 } }]
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

export async function bonjourPublisher(log: Logger, bonjourOptions?: Record<string, unknown>): Promise<MdnsPublisher> {
  // bonjour-service is CommonJS: its exports object is the namespace's default, in Node and
  // in the gateway's bundle alike (esbuild gives a dynamically imported CommonJS module no
  // named exports: runtime/build/bundle.ts).
  const { Bonjour } = (await import('bonjour-service')).default
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
        publisher = options.publisher ? options.publisher() : await bonjourPublisher(options.log, options.bonjourOptions)
        for (const ad of advertisements(options)) {
          publisher.publish(ad)
          options.log.info({ type: `_${ad.type}._tcp`, port: ad.port }, 'advertised over mDNS')
        }
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
