import t from 'tap'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { checkV1Target, namesCaller } from '../../../lib/api/v1-register.ts'

t.test("an unauthenticated v1 registration names the caller's own IP address", async (t) => {
  t.ok(namesCaller('http://192.168.1.30:9000/hook', '192.168.1.30'))
  t.ok(namesCaller('http://192.168.1.30/hook', '::ffff:192.168.1.30'), 'an IPv4-mapped caller')
  t.ok(namesCaller('http://[::ffff:c0a8:11e]/hook', '192.168.1.30'), 'an IPv4-mapped URL')
  t.ok(namesCaller('http://[fd00::5]:81/', 'fd00:0:0:0::5'), 'IPv6 spelled differently')
  t.ok(namesCaller('http://localhost:9000/', '127.0.0.1'), 'localhost from the box itself')
  t.notOk(namesCaller('http://localhost:9000/', '192.168.1.30'), 'localhost from another host is not that host')
  t.notOk(namesCaller('http://192.168.1.66/hook', '192.168.1.30'), "another host: the attacker's")
  t.notOk(namesCaller('http://pos.local/hook', '192.168.1.30'), 'a name (it may resolve elsewhere later)')
  t.notOk(namesCaller('http://[fd00::6]/', 'fd00::5'))
})

t.test('with credentials (v1 Basic authentication) any valid target may be registered', async (t) => {
  t.doesNotThrow(() => checkV1Target('http://192.168.1.66/hook', { ip: '192.168.1.30', token: { name: 'pos', id: 'x' } }))
  t.doesNotThrow(() => checkV1Target('http://192.168.1.30/hook', { ip: '192.168.1.30' }))
  t.throws(
    () => checkV1Target('http://192.168.1.66/hook', { ip: '192.168.1.30' }),
    new DomainError(
      'CALLBACK_INVALID',
      "without credentials, v1 registers only a callback on the caller's own IP address (register other hosts with POST /api/v2/register)",
    ),
  )
})
