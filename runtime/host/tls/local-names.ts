// The names and addresses a client on the restaurant's network may use for the box: what its
// own certificate must name so that a client checking names (not only the fingerprint) agrees.
import { hostname, networkInterfaces } from 'node:os'

export interface LocalNames {
  names: string[]
  addresses: string[]
}

/**
 * Host name, its first label, both with .local (mDNS), localhost; every interface address,
 * loopback included. IPv6 link-local addresses are left out: a certificate cannot name their zone.
 */
export function localNames(name = hostname(), interfaces = networkInterfaces()): LocalNames {
  const lower = name.toLowerCase()
  const label = lower.split('.')[0]!
  const names = [...new Set([lower, label, `${label}.local`, lower.endsWith('.local') ? lower : `${lower}.local`, 'localhost'])].filter(
    (n) => n !== '' && n !== '.local',
  )
  const addresses = Object.values(interfaces)
    .flat()
    .filter((entry) => entry !== undefined)
    .map((entry) => entry!.address)
    .filter((address) => !address.toLowerCase().startsWith('fe80:'))
  return { names, addresses: [...new Set(['127.0.0.1', '::1', ...addresses])] }
}

/** The SAN entries (as node:crypto's X509Certificate prints them) a certificate for these must have. */
export function expectedAltNames(local: LocalNames): string[] {
  return [...local.names.map((n) => `DNS:${n}`), ...local.addresses.map((a) => `IP Address:${a}`)]
}
