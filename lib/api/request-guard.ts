// What a browser on the restaurant's LAN must not be able to do with the gateway
// (docs/api.md, "The LAN and browsers"): use it from another site's page (CSRF: a no-cors POST, an <img> to
// /api/v1/register), or through a name rebound to its address (DNS rebinding). A pure
// check over the method, path and headers, run by the router before any route for every
// host, so POS and KDS clients, which send none of the browser headers, pass unchanged.
import { isIP } from 'node:net'
import type { ErrorKind } from '../kernel/errors.ts'

export interface HeaderSource {
  get(name: string): string | null
}

/** The names the gateway answers to; any other Host gets 421 (a rebound name). */
export class HostAllowList {
  readonly #names: Set<string>
  /** Host header values already judged: the same few arrive on every request. */
  readonly #verdicts = new Map<string, boolean>()

  constructor(names: Iterable<string>) {
    this.#names = new Set(['localhost', ...[...names].map(normalName)])
  }

  /** The box's hostname, its first label and their mDNS names, plus configured names. */
  static forHost(hostname: string, configured: readonly string[] = []): HostAllowList {
    const name = normalName(hostname)
    const label = name.split('.')[0]
    return new HostAllowList([name, label, `${name}.local`, `${label}.local`, ...configured])
  }

  allows(host: string | null): boolean {
    // HTTP/1.0 clients may omit it; browsers never do.
    if (host === null) return true
    let verdict = this.#verdicts.get(host)
    if (verdict === undefined) {
      const name = hostName(host)
      verdict = name !== undefined && (isIP(name) !== 0 || this.#names.has(name))
      // Bounded: a client sending a new Host each time only costs a recomputation.
      if (this.#verdicts.size >= 256) this.#verdicts.clear()
      this.#verdicts.set(host, verdict)
    }
    return verdict
  }
}

function normalName(name: string): string {
  const lower = name.trim().toLowerCase()
  return lower.endsWith('.') ? lower.slice(0, -1) : lower
}

/** "Name:8000" → "name", "[::1]:8000" → "::1"; undefined when it is no host at all. */
function hostName(host: string): string | undefined {
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    return end > 0 && /^(:\d{1,5})?$/.test(host.slice(end + 1)) ? host.slice(1, end).toLowerCase() : undefined
  }
  const match = /^([A-Za-z0-9.\-_]+?)\.?(?::\d{1,5})?$/.exec(host)
  return match ? match[1].toLowerCase() : undefined
}

/** Reads a browser may make of the gateway from any page: the open descriptions. */
const openToAnySite = new Set(['/api/v1', '/api/v1/', '/api/v2', '/api/v2/', '/api/openapi.json'])

/** Methods that never carry a state change (and whose bodies are ignored). */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The Origin's host:port, lower case, without the default port; "null" and garbage: undefined. */
function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host
  } catch {
    return undefined
  }
}

function sameHost(origin: string, host: string | null): boolean {
  if (host === null) return false
  const fromOrigin = originHost(origin)
  if (fromOrigin === undefined) return false
  // Compared as a URL would print them (case, default port); the scheme is not compared,
  // so the gateway's own pages behind a TLS proxy that keeps the Host stay same-origin.
  try {
    return new URL(`http://${host}`).host === fromOrigin || new URL(`https://${host}`).host === fromOrigin
  } catch {
    return false
  }
}

/** True when a browser says the request comes from a page that is not the gateway's (Sec-Fetch-Site, Origin or Referer). */
export function isCrossSite(headers: HeaderSource): boolean {
  const site = headers.get('sec-fetch-site')
  if (site === 'cross-site' || site === 'same-site') return true
  const host = headers.get('host')
  const origin = headers.get('origin')
  if (origin !== null && !sameHost(origin, host)) return true
  // Browsers send no Sec-Fetch-* to a plain-http LAN address and no Origin with an <img> GET:
  // the Referer is then the only sign of the page that made the request (issue 25).
  const referer = headers.get('referer')
  return referer !== null && !sameHost(referer, host)
}

/**
 * The refusal for a request, or undefined to let it through: an unknown Host (421), a
 * browser request from another site to anything but the open descriptions (403), a body
 * that is not declared as JSON on a method that changes state (415).
 */
export function refusal(method: string, path: string, headers: HeaderSource, hosts: HostAllowList): ErrorKind | undefined {
  if (!hosts.allows(headers.get('host'))) return 'HOST_UNKNOWN'
  // The board, /docs and their assets are static and hold no data: linking to them is fine.
  if (path.startsWith('/api') && !(safeMethods.has(method) && openToAnySite.has(path)) && isCrossSite(headers)) {
    return 'CROSS_SITE_REFUSED'
  }
  if (!safeMethods.has(method)) {
    const type = headers.get('content-type')
    // No Content-Type at all is a known POS quirk (a JSON body sent bare): still accepted.
    if (type !== null && mediaType(type) !== 'application/json') return 'CONTENT_TYPE_UNSUPPORTED'
  }
  return undefined
}

function mediaType(contentType: string): string {
  const semicolon = contentType.indexOf(';')
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase()
}
