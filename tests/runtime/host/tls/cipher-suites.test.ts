// The HTTPS server speaks TLS 1.3 and TLS 1.2 with AEAD suites only (issue 41): a client
// offering only CBC suites is refused at the handshake, GCM and ChaCha20 clients are served,
// also after the certificate is swapped (a new secure context must keep the suites).
import tls from 'node:tls'
import t from 'tap'
import { createHttpHost } from '../../../../runtime/host/http.ts'
import { buildRouter } from '../../../../runtime/host/router.ts'
import { makeSelfSigned } from '../../../../runtime/host/tls/self-signed.ts'
import { testGateway } from '../../../helpers/gateway.ts'

const pairOf = () => {
  const made = makeSelfSigned({ names: ['localhost'], addresses: ['127.0.0.1'], now: new Date() })
  return { cert: made.certPem, key: made.keyPem }
}

/** The cipher the handshake settled on, or the error that ended it. */
function handshake(port: number, options: tls.ConnectionOptions): Promise<{ cipher?: string; version?: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
      const cipher = socket.getCipher()
      resolve({ cipher: cipher.standardName, version: socket.getProtocol() ?? undefined })
      socket.destroy()
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
  })
}

t.test('CBC-only TLS 1.2 clients are refused; GCM, ChaCha20 and TLS 1.3 clients are served', async (t) => {
  const gw = await testGateway()
  const router = buildRouter((await import('../../../../functions/_manifest.gen.ts')).manifest, gw.services)
  const host = createHttpHost(router, gw.services.log, { tls: true })
  host.setCertificate(pairOf())
  await host.listen(0, '127.0.0.1')
  const port = await host.listenSecure(0, '127.0.0.1')
  t.teardown(() => host.close(100))
  const tls12 = { maxVersion: 'TLSv1.2' as const }

  const check = async (when: string) => {
    for (const cbc of ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384', 'ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES256-SHA']) {
      const refused = await handshake(port, { ...tls12, ciphers: cbc })
      t.ok(refused.error, `${when}: a client offering only ${cbc} is refused (${refused.error ?? refused.cipher})`)
    }
    t.match(
      await handshake(port, { ...tls12, ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }),
      { cipher: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', version: 'TLSv1.2' },
      `${when}: GCM`,
    )
    t.match(
      await handshake(port, { ...tls12, ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305' }),
      { cipher: 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256' },
      `${when}: ChaCha20`,
    )
    t.match(await handshake(port, {}), { version: 'TLSv1.3' }, `${when}: TLS 1.3`)
    // A TLS 1.2 client offering CBC first and GCM too gets GCM (the server's order).
    t.match(
      await handshake(port, { ...tls12, ciphers: 'ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-GCM-SHA384' }),
      { cipher: 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384' },
      `${when}: GCM preferred`,
    )
    t.match(await handshake(port, { maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }), { error: /./ }, `${when}: TLS 1.1 refused`)
  }
  await check('at start')
  host.setCertificate(pairOf())
  await check('after the certificate is swapped')
})
