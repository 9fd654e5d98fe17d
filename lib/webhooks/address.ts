// Classifies an IP address for the webhook target guard (docs/api.md, "Events: webhooks and WebSocket"). Works on the
// address a connection would really use, so every spelling of loopback (2130706433,
// 0x7f000001, 0177.0.0.1, 127.1 are normalised by the URL parser; ::ffff:127.0.0.1 and the
// other IPv6 forms that embed an IPv4 address are unwrapped here) lands in the same class.
import net from 'node:net'

export type AddressClass = 'loopback' | 'link-local' | 'multicast' | 'unspecified' | 'broadcast' | 'reserved' | 'allowed'

function ipv4Class(octets: number[]): AddressClass {
  const [a, b] = octets as [number, number]
  if (octets.every((o) => o === 255)) return 'broadcast'
  if (a === 0) return 'unspecified' // 0.0.0.0/8 "this network"
  if (a === 127) return 'loopback'
  if (a === 169 && b === 254) return 'link-local'
  if (a >= 224 && a <= 239) return 'multicast'
  if (a >= 240) return 'reserved'
  return 'allowed' // public and RFC 1918 private addresses: receivers live on the LAN
}

/** The 16 bytes of an IPv6 address (with an optional dotted IPv4 tail), or null. */
export function ipv6Bytes(text: string): number[] | null {
  let address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  if (!net.isIPv6(address)) return null
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)
  if (tail) {
    const o = tail[1]!.split('.').map(Number)
    address = `${address.slice(0, -tail[1]!.length)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`
  }
  const [head, rest] = address.includes('::') ? address.split('::') : [address, undefined]
  const headGroups = head ? head.split(':') : []
  const restGroups = rest ? rest.split(':') : []
  const missing = 8 - headGroups.length - restGroups.length
  const groups = rest === undefined ? headGroups : [...headGroups, ...Array(missing).fill('0'), ...restGroups]
  if (groups.length !== 8) return null
  return groups.flatMap((g) => {
    const n = parseInt(g, 16)
    return [n >> 8, n & 0xff]
  })
}

function ipv6Class(bytes: number[]): AddressClass {
  const zeroPrefix = (n: number) => bytes.slice(0, n).every((b) => b === 0)
  const embedded = bytes.slice(12)
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address.
  if (zeroPrefix(10) && bytes[10] === 0xff && bytes[11] === 0xff) return ipv4Class(embedded)
  if (zeroPrefix(15) && bytes[15] === 0) return 'unspecified'
  if (zeroPrefix(15) && bytes[15] === 1) return 'loopback'
  if (zeroPrefix(12)) return ipv4Class(embedded)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && bytes.slice(4, 12).every((b) => b === 0)) {
    return ipv4Class(embedded)
  }
  // 6to4 (2002::/16) carries an IPv4 address in bytes 2-5.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return ipv4Class(bytes.slice(2, 6))
  if (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80) return 'link-local'
  if (bytes[0] === 0xff) return 'multicast'
  return 'allowed'
}

/** The class of an IP literal (IPv4 dotted or IPv6, brackets allowed); null when not an IP. */
export function classifyAddress(address: string): AddressClass | null {
  const bare = address.replace(/^\[|\]$/g, '')
  if (net.isIPv4(bare)) return ipv4Class(bare.split('.').map(Number))
  const bytes = ipv6Bytes(bare)
  return bytes ? ipv6Class(bytes) : null
}

/** A canonical text form used to compare addresses (IPv4-mapped IPv6 becomes IPv4). */
export function canonicalAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '')
  if (net.isIPv4(bare)) return bare
  const bytes = ipv6Bytes(bare)
  if (!bytes) return bare.toLowerCase()
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12).join('.')
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16))
  return groups.join(':')
}
