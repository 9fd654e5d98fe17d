import type { NetworkInterfaceInfo } from 'node:os'
import t from 'tap'
import { boardUrls, listenError } from '../../../runtime/wiring/process-parts.ts'

const entry = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal }) as NetworkInterfaceInfo

t.test('the board addresses: every LAN address, then name.local, then localhost', async (t) => {
  const interfaces = {
    lo: [entry('127.0.0.1', 'IPv4', true), entry('::1', 'IPv6', true)],
    eth0: [entry('192.168.1.20', 'IPv4'), entry('fe80::1', 'IPv6'), entry('2001:db8::20', 'IPv6')],
    wlan0: [entry('10.0.0.5', 'IPv4')],
  }
  t.same(boardUrls('0.0.0.0', 8000, interfaces, 'pi'), [
    'http://192.168.1.20:8000/',
    'http://10.0.0.5:8000/',
    'http://pi.local:8000/',
    'http://localhost:8000/',
  ])
  t.same(
    boardUrls('::', 8000, interfaces, 'pi'),
    ['http://192.168.1.20:8000/', 'http://[2001:db8::20]:8000/', 'http://10.0.0.5:8000/', 'http://pi.local:8000/', 'http://localhost:8000/'],
    'IPv6 too when listening on ::, link-local left out',
  )
  t.same(boardUrls('127.0.0.1', 8080, interfaces, 'pi'), ['http://127.0.0.1:8080/'], 'one address: only that one')
  t.same(boardUrls('::1', 8080), ['http://[::1]:8080/'])
})

t.test('listen errors: a port in use or not allowed is a configuration error in one line', async (t) => {
  const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' })
  t.match(listenError(inUse, 8000, '0.0.0.0'), { name: 'ConfigError', message: 'port 8000 on 0.0.0.0 is in use: another gateway on 8000? `gateway status`' })
  const denied = Object.assign(new Error('listen EACCES'), { code: 'EACCES' })
  t.match(listenError(denied, 80, '0.0.0.0'), { name: 'ConfigError', message: /port 80 on 0\.0\.0\.0: this user may not listen there/ })
  const other = Object.assign(new Error('listen EINVAL'), { code: 'EINVAL' })
  t.equal(listenError(other, 1, 'x'), other, 'anything else as it was')
})
