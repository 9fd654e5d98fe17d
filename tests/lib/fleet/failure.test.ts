import t from 'tap'
import { FleetTlsFileError } from '../../../lib/fleet/config.ts'
import { classifyFailure } from '../../../lib/fleet/failure.ts'

const withCode = (code: unknown, message = 'x') => Object.assign(new Error(message), { code })

t.test('refused credentials are auth-failed (MQTT 3.1.1 and 5 codes)', async (t) => {
  for (const code of [4, 5, 0x86, 0x87]) t.equal(classifyFailure(withCode(code)).kind, 'auth-failed', String(code))
  t.match(classifyFailure(withCode(4)).message, /bad user name or password/)
  t.match(classifyFailure(withCode(5)).message, /not authorized/)
})

t.test('other refusals and network errors are down', async (t) => {
  t.equal(classifyFailure(withCode(3)).kind, 'down')
  t.match(classifyFailure(withCode(3)).message, /server unavailable/)
  t.equal(classifyFailure(withCode('ECONNREFUSED', 'connect ECONNREFUSED')).kind, 'down')
  t.equal(classifyFailure(new Error('connack timeout')).kind, 'down')
  t.equal(classifyFailure('weird').kind, 'down')
})

t.test('certificate and TLS errors are tls-failed', async (t) => {
  for (const code of [
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'CERT_HAS_EXPIRED',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
    'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
    'ERR_OSSL_PEM_NO_START_LINE',
    'EPROTO',
  ]) {
    t.equal(classifyFailure(withCode(code)).kind, 'tls-failed', code)
  }
  t.equal(classifyFailure(new FleetTlsFileError('cannot read fleet.ca file')).kind, 'tls-failed')
  t.match(classifyFailure(withCode('CERT_HAS_EXPIRED', 'certificate has expired')).message, /^TLS: certificate has expired/)
})
