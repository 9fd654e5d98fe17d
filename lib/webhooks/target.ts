// Which webhook targets the gateway may connect to (docs/api.md, "Events: webhooks and WebSocket"). The check runs on the
// address a connection is about to use: IP literals before connecting, host names inside
// the socket's DNS lookup, so a name that resolves elsewhere later (DNS rebinding) is
// checked again on every connection. Redirects are never followed (see http-client.ts).
import dns from 'node:dns'
import type { LookupFunction } from 'node:net'
import os from 'node:os'
import { DomainError } from '../kernel/errors.ts'
import { canonicalAddress, classifyAddress } from './address.ts'

/** Longest callback URL accepted. */
export const maxUrlLength = 2048

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Resolves a host name to every address it has (injectable, so tests can rebind names). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

/** A connection the guard refused; carries why, for -29 and the registration's lastError. */
export class TargetRefused extends Error {
  readonly code = 'EWEBHOOKTARGET'
  constructor(reason: string) {
    super(`target not allowed: ${reason}`)
    this.name = 'TargetRefused'
  }
}

export interface Endpoint {
  host: string
  port: number
}

export interface GuardOptions {
  allowLoopback: boolean
  /** Where the gateway itself listens (null before it listens). */
  ownEndpoint: () => Endpoint | null
  resolver?: Resolver
}

/**
 * A callback URL as given by a client: http or https, a host, no user name or password,
 * at most 2048 characters. Missing → -28; anything else wrong → -29.
 */
export function parseTarget(value: unknown): URL {
  if (value === undefined || value === null || value === '') throw new DomainError('CALLBACK_MISSING')
  if (typeof value !== 'string') throw new DomainError('CALLBACK_INVALID', 'http_client must be a string')
  if (value.length > maxUrlLength) throw new DomainError('CALLBACK_INVALID', `longer than ${maxUrlLength} characters`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new DomainError('CALLBACK_INVALID', 'not an absolute URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DomainError('CALLBACK_INVALID', 'only http and https are allowed')
  if (url.username || url.password) throw new DomainError('CALLBACK_INVALID', 'user names and passwords are not allowed in the URL')
  if (!url.hostname) throw new DomainError('CALLBACK_INVALID', 'no host')
  url.hash = ''
  return url
}

export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
}

export class TargetGuard {
  readonly #options: GuardOptions
  readonly #resolver: Resolver

  constructor(options: GuardOptions) {
    this.#options = options
    this.#resolver = options.resolver ?? systemResolver
  }

  /** Why a connection to address:port is refused, or null when it is allowed. */
  refusal(address: string, port: number): string | null {
    const kind = classifyAddress(address)
    if (kind === null) return `${address} is not an IP address`
    if (kind === 'loopback' && !this.#options.allowLoopback) return 'loopback addresses are not allowed'
    if (kind !== 'allowed' && kind !== 'loopback') return `${kind} addresses are not allowed`
    if (this.#isOwn(address, kind, port)) return "the gateway's own address and port"
    return null
  }

  #isOwn(address: string, kind: string, port: number): boolean {
    const own = this.#options.ownEndpoint()
    if (!own || own.port !== port) return false
    const ownHost = canonicalAddress(own.host)
    const ownKind = classifyAddress(ownHost)
    // A socket bound to the unspecified address answers on every local address (all of 127/8 included).
    if (ownKind === 'unspecified') return kind === 'loopback' || localAddresses().has(canonicalAddress(address))
    if (ownKind === 'loopback' && kind === 'loopback') return true
    return ownHost === canonicalAddress(address)
  }

  /** Throws TargetRefused when the URL's host is an IP literal that is not allowed. */
  checkLiteral(url: URL): void {
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (classifyAddress(host) === null) return
    const reason = this.refusal(host, portOf(url))
    if (reason) throw new TargetRefused(reason)
  }

  /**
   * The DNS lookup for a connection to port: every resolved address must be allowed (a
   * name with one forbidden answer is refused), and the socket uses exactly those addresses.
   */
  lookupFor(port: number): LookupFunction {
    return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
      this.#resolver(hostname).then(
        (addresses) => {
          if (!addresses.length) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }))
          for (const { address } of addresses) {
            const reason = this.refusal(address, port)
            if (reason) return callback(new TargetRefused(`${hostname} resolves to ${address}: ${reason}`))
          }
          const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses
          const usable = wanted.length ? wanted : addresses
          if (options.all) callback(null, usable)
          else callback(null, usable[0]!.address, usable[0]!.family)
        },
        (error: unknown) => callback(error),
      )
    }) as unknown as LookupFunction
  }
}

function localAddresses(): Set<string> {
  const set = new Set<string>()
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) set.add(canonicalAddress(info.address))
  }
  return set
}
