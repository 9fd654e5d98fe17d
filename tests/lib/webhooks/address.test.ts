import t from 'tap'
import { canonicalAddress, classifyAddress } from '../../../lib/webhooks/address.ts'

const hostOf = (url: string) => new URL(url).hostname

t.test('every spelling of loopback is loopback (URL parser normalises the IPv4 forms)', async (t) => {
  for (const url of [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://127.255.0.9/',
  ]) {
    t.equal(classifyAddress(hostOf(url)), 'loopback', url)
  }
  t.equal(classifyAddress('::ffff:127.0.0.1'), 'loopback', 'mapped form as DNS returns it')
  t.equal(classifyAddress('::127.0.0.1'), 'loopback', 'IPv4-compatible')
  t.equal(classifyAddress('64:ff9b::7f00:1'), 'loopback', 'NAT64')
  t.equal(classifyAddress('2002:7f00:1::'), 'loopback', '6to4')
})

t.test('forbidden classes', async (t) => {
  const cases: [string, string][] = [
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::ffff:169.254.1.1', 'link-local'],
  ]
  for (const [address, kind] of cases) t.equal(classifyAddress(address), kind, address)
})

t.test('LAN and public addresses are allowed; non-IPs are null', async (t) => {
  for (const address of ['10.99.0.1', '192.168.1.20', '172.16.0.5', '8.8.8.8', '2001:db8::1', 'fd00::1']) {
    t.equal(classifyAddress(address), 'allowed', address)
  }
  t.equal(classifyAddress('example.com'), null)
  t.equal(classifyAddress('1.2.3'), null)
})

t.test('canonical forms compare equal', async (t) => {
  t.equal(canonicalAddress('::ffff:10.0.0.1'), '10.0.0.1')
  t.equal(canonicalAddress('[::1]'), canonicalAddress('0:0:0:0:0:0:0:1'))
})
