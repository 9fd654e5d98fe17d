// What an unauthenticated v1 registration may register. The spec's GET /api/v1/register has no
// credentials, and a GET is what any web page can make a browser send (<img src=...>). The
// request guard refuses every request that shows a sign of another site (Origin, Referer,
// Sec-Fetch-Site), but a page can strip its referrer, and browsers send no Sec-Fetch-* to a
// plain-http LAN address, so nothing then tells such a request from a POS's. So, without
// credentials, v1 registers only a callback on the address the request comes from: a POS
// registering itself works as the spec has it, while a page in a staff member's browser can
// at most point the feed at that staff computer, never at the attacker's host. Any LAN device
// can still register its own address directly, as v1 always allowed. Other hosts: v2
// (POST /api/v2/register with a token), or v1 with Basic authentication turned on.
import { DomainError } from '../kernel/errors.ts'
import { canonicalAddress, classifyAddress } from '../webhooks/address.ts'

/** True when `url` (a valid callback URL) names the caller's own address. */
export function namesCaller(url: string, callerIp: string): boolean {
  const host = new URL(url).hostname
  if (host === 'localhost') return classifyAddress(callerIp) === 'loopback'
  // Only IP literals: a name could resolve to the caller now and to another host later.
  return classifyAddress(host) !== null && canonicalAddress(host) === canonicalAddress(callerIp)
}

/** Refuses (-29) an unauthenticated v1 registration of a URL that is not the caller's own. */
export function checkV1Target(url: string, caller: { ip: string; token?: unknown }): void {
  if (caller.token || namesCaller(url, caller.ip)) return
  throw new DomainError(
    'CALLBACK_INVALID',
    "without credentials, v1 registers only a callback on the caller's own IP address (register other hosts with POST /api/v2/register)",
  )
}
