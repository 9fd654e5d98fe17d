// HTTPS on the gateway: which certificate it serves (tls.certFile, else one installed with
// `gateway tls install`, else the box's own), the secure server's listening, the status the
// API and `gateway status` show, and swapping the certificate without a restart (an install,
// or new addresses for the box's own). docs/operations.md, "TLS".
import type { GatewayConfig } from '../../../lib/config.ts'
import { ConfigError } from '../../../lib/config.ts'
import type { TlsStatus, TlsStatusHolder } from '../../../lib/gateway/tls-status.ts'
import type { Logger } from '../../../lib/kernel/log.ts'
import type { Part } from '../../wiring/lifecycle.ts'
import { boardUrls, listenError } from '../../wiring/process-parts.ts'
import type { HttpHost } from '../http.ts'
import { CertificateRefused, checkCertificatePair } from './certificate-check.ts'
import { type CertificatePair, configuredPair, ensureSelfSigned, installedPair, installPair } from './certificate-files.ts'
import { describeCertificate } from './certificate-info.ts'
import { type LocalNames, localNames } from './local-names.ts'

/** The HTTPS port beside the plain one: 8443 beside the specification's 8000. */
export const tlsPortOffset = 443

/**
 * The HTTPS port: tls.port, else the plain port + 443 (8443 for 8000), so a second gateway
 * started with another --port does not fail on the first one's HTTPS port; any free port
 * when the plain port is 0 (tests) or the sum is not a port.
 */
export function tlsPortOf(config: GatewayConfig): number {
  if (config.tls.port !== undefined) return config.tls.port
  const beside = config.port + tlsPortOffset
  return config.port === 0 || beside > 65535 ? 0 : beside
}

export interface TlsServiceOptions {
  config: GatewayConfig
  host: HttpHost
  status: TlsStatusHolder
  log: Logger
  now?: () => Date
  names?: () => LocalNames
  /** How often the box's names and addresses are compared with its own certificate's. */
  addressCheckMs?: number
}

export class TlsService {
  readonly #options: TlsServiceOptions
  readonly #now: () => Date
  readonly #names: () => LocalNames
  #port = 0
  #timer: NodeJS.Timeout | undefined
  #following: Promise<void> | undefined
  #stopped = false

  constructor(options: TlsServiceOptions) {
    this.#options = options
    this.#now = options.now ?? (() => new Date())
    this.#names = options.names ?? (() => localNames())
  }

  get port(): number {
    return this.#port
  }

  /** The pair to serve now, checked. A configured pair that does not check stops start-up. */
  async #choose(): Promise<CertificatePair> {
    const { config, log } = this.#options
    const now = this.#now()
    if (config.tls.certFile !== undefined && config.tls.keyFile !== undefined) {
      try {
        const pair = configuredPair(config.tls.certFile, config.tls.keyFile)
        checkCertificatePair(pair.cert, pair.key, now)
        return pair
      } catch (error) {
        throw new ConfigError(`tls.certFile ${config.tls.certFile}, tls.keyFile ${config.tls.keyFile}: ${(error as Error).message}`)
      }
    }
    const installed = installedPair(config.dataDir)
    if (installed) {
      try {
        checkCertificatePair(installed.cert, installed.key, now)
        return installed
      } catch (error) {
        // Expired since it was installed: the box's own serves until IT installs a new one.
        log.error(
          { reason: (error as Error).message },
          "the installed TLS certificate cannot be used: serving the box's own; install a new one with `gateway tls install`",
        )
      }
    }
    const { pair, reissued, unstored } = await ensureSelfSigned(config.dataDir, this.#names(), now)
    if (reissued) log.info({ reason: reissued }, "made the box's own TLS certificate")
    if (unstored)
      log.warn({ reason: unstored }, "the box's own TLS certificate could not be stored in the data dir: it serves until the next start, which makes another")
    return pair
  }

  #serve(pair: CertificatePair): TlsStatus {
    this.#options.host.setCertificate({ cert: pair.cert, key: pair.key })
    const info = describeCertificate(pair.cert)
    const status: TlsStatus = {
      port: this.#port,
      source: pair.source,
      fingerprintSha256: info.fingerprintSha256,
      spkiSha256: info.spkiSha256,
      subjectAltNames: info.subjectAltNames,
      validTo: info.validTo.toISOString(),
    }
    this.#options.status.set(status)
    return status
  }

  async start(): Promise<void> {
    const { config, host, log } = this.#options
    const pair = await this.#choose()
    host.setCertificate({ cert: pair.cert, key: pair.key })
    const port = tlsPortOf(config)
    this.#port = await host.listenSecure(port, config.host).catch((error: unknown) => {
      throw listenError(error, port, config.host)
    })
    const status = this.#serve(pair)
    log.info({ port: status.port, source: status.source, fingerprintSha256: status.fingerprintSha256 }, 'HTTPS listening')
    for (const url of boardUrls(config.host, status.port).map((plain) => plain.replace(/^http:/, 'https:'))) log.info({ url }, `board: ${url}`)
    this.#stopped = false
    this.#timer = setInterval(() => void this.#followAddressesOnce(), this.#options.addressCheckMs ?? 60_000)
    this.#timer.unref()
  }

  /** Chooses and serves the certificate again (after an install or a removal): its status. */
  async reload(): Promise<TlsStatus> {
    return this.#serve(await this.#choose())
  }

  /** Checks and installs a pair from the restaurant's IT, then serves it at once. */
  install(pair: { cert: string; key: string }): Promise<TlsStatus> {
    checkCertificatePair(pair.cert, pair.key, this.#now())
    installPair(this.#options.config.dataDir, pair)
    return this.reload()
  }

  /**
   * One check at a time: a reissue runs in a child that may take minutes on a busy box, and
   * every check until it is stored would otherwise start another child beside it.
   */
  async #followAddressesOnce(): Promise<void> {
    if (this.#following) return
    this.#following = this.#followAddresses()
    try {
      await this.#following
    } finally {
      this.#following = undefined
    }
  }

  /** The box's own certificate is reissued when the box got a new name or address. */
  async #followAddresses(): Promise<void> {
    if (this.#options.status.get()?.source !== 'self-signed') return
    try {
      const { pair, reissued, unstored } = await ensureSelfSigned(this.#options.config.dataDir, this.#names(), this.#now())
      if (!reissued || this.#stopped) return
      if (unstored) this.#options.log.warn({ reason: unstored }, 'the reissued TLS certificate could not be stored in the data dir')
      const status = this.#serve(pair)
      this.#options.log.info({ reason: reissued, fingerprintSha256: status.fingerprintSha256 }, "reissued the box's own TLS certificate (same key)")
    } catch (error) {
      this.#options.log.error({ err: error }, "could not reissue the box's own TLS certificate")
    }
  }

  stop(): void {
    this.#stopped = true
    clearInterval(this.#timer)
    this.#options.status.set(null)
  }
}

/** The TLS service as a part of the gateway; nothing when tls.enabled is false. */
export function tlsPart(service: TlsService | undefined): Part {
  return {
    name: 'tls',
    start: async () => service?.start(),
    stop: async () => service?.stop(),
  }
}

export { CertificateRefused }
