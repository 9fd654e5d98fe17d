import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

const status = {
  port: 8443,
  source: 'self-signed' as const,
  fingerprintSha256: Array.from({ length: 32 }, () => 'AB').join(':'),
  spkiSha256: 'pin=',
  subjectAltNames: ['DNS:box.local', 'IP Address:192.168.1.20'],
  validTo: '2036-01-01T00:00:00.000Z',
}

t.test('GET /api/v2/gateway/tls: open, null while HTTPS is off, then what it serves', async (t) => {
  const gw = await testGateway()
  t.teardown(() => gw.services.webhooks.close())
  const off = await gw.json('GET /api/v2/gateway/tls')
  t.same(off.body, { status: 200, returnCode: 25, tls: null })
  gw.services.tlsStatus.set(status)
  const on = await gw.json('GET /api/v2/gateway/tls')
  t.same(on.body, { status: 200, returnCode: 25, tls: status })
})

t.test('GET /api/v2/gateway carries the same status as gatewayStatus.tls', async (t) => {
  const gw = await testGateway()
  t.teardown(() => gw.services.webhooks.close())
  const token = await gw.issueToken()
  t.equal((await gw.json('GET /api/v2/gateway', { token })).body.gatewayStatus.tls, null)
  gw.services.tlsStatus.set(status)
  t.same((await gw.json('GET /api/v2/gateway', { token })).body.gatewayStatus.tls, status)
})
