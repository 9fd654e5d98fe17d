import type { NetworkInterfaceInfo } from 'node:os'
import t from 'tap'
import { boardUrls } from '../../runtime/process-parts.ts'

const entry = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal }) as NetworkInterfaceInfo

t.test('the board addresses: every LAN address, then name.local, then localhost', async (t) => {
  const interfaces = {
    lo: [entry('127.0.0.1', 'IPv4', true), entry('::1', 'IPv6', true)],
    eth0: [entry('192.168.1.20', 'IPv4'), entry('fe80::1', 'IPv6'), entry('2001:db8::20', 'IPv6')],
    wlan0: [entry('10.0.0.5', 'IPv4')],
  }
  t.same(boardUrls('0.0.0.0', 8000, interfaces, 'pi'), ['http://192.168.1.20:8000/', 'http://10.0.0.5:8000/', 'http://pi.local:8000/', 'http://localhost:8000/'])
  t.same(boardUrls('::', 8000, interfaces, 'pi'), [
    'http://192.168.1.20:8000/',
    'http://[2001:db8::20]:8000/',
    'http://10.0.0.5:8000/',
    'http://pi.local:8000/',
    'http://localhost:8000/',
  ], 'IPv6 too when listening on ::, link-local left out')
  t.same(boardUrls('127.0.0.1', 8080, interfaces, 'pi'), ['http://127.0.0.1:8080/'], 'one address: only that one')
  t.same(boardUrls('::1', 8080), ['http://[::1]:8080/'])
})
