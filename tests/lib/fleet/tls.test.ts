// mqtts:// against a real Mosquitto that requires a client certificate from its own CA.
import t from 'tap'
import path from 'node:path'
import { writeFileSync } from 'node:fs'
import { makePki } from './certs.ts'
import { startBroker } from './mosquitto.ts'
import { until } from '../../helpers/until.ts'
import { fleetService } from './fixtures.ts'

t.test('TLS with client certificates', async (t) => {
  const dir = t.testdir()
  const pki = makePki(dir)
  const broker = await startBroker(
    {
      dir,
      lines: [`cafile ${pki.ca}`, `certfile ${pki.serverCert}`, `keyfile ${pki.serverKey}`, 'require_certificate true'],
    },
    'mqtts',
  )
  t.teardown(() => broker.stop())
  const base = { enabled: true, brokerUrl: broker.url, reconnectMs: 500 }

  const connectAs = async (fleet: Record<string, unknown>) => {
    const { service } = await fleetService({ ...base, ...fleet })
    service.start()
    t.teardown(() => service.stop())
    return service
  }

  t.test('the site certificate signed by the broker CA connects', async (t) => {
    const service = await connectAs({ siteId: 'tls-ok', ca: pki.ca, cert: pki.clientCert, key: pki.clientKey })
    await until(() => service.status().state === 'connected', 'connected')
    t.equal(service.status().lastError, null)
  })

  t.test('a certificate from another CA is refused by the broker: tls-failed', async (t) => {
    const service = await connectAs({ siteId: 'tls-rogue', ca: pki.ca, cert: pki.rogueCert, key: pki.rogueKey })
    await until(() => service.status().state === 'tls-failed', 'tls-failed')
    t.match(service.status().lastError, /^TLS: /)
  })

  t.test('a broker the configured CA does not vouch for: tls-failed', async (t) => {
    const service = await connectAs({ siteId: 'tls-untrusted', ca: pki.rogueCa, cert: pki.clientCert, key: pki.clientKey })
    await until(() => service.status().state === 'tls-failed', 'tls-failed')
    t.match(service.status().lastError, /certificate/i)
  })

  t.test('an unreadable or broken certificate file: tls-failed with the file named', async (t) => {
    const missing = await connectAs({ siteId: 'tls-missing', ca: path.join(dir, 'nope.pem'), cert: pki.clientCert, key: pki.clientKey })
    await until(() => missing.status().state === 'tls-failed', 'tls-failed (missing)')
    t.match(missing.status().lastError, /fleet\.ca file .*nope\.pem/)
    const garbage = path.join(dir, 'garbage.pem')
    writeFileSync(garbage, 'not a certificate')
    const broken = await connectAs({ siteId: 'tls-garbage', ca: pki.ca, cert: garbage, key: pki.clientKey })
    await until(() => broken.status().state === 'tls-failed', 'tls-failed (garbage)')
  })
})
