// The fast host's HTTPS server: the same connection guard counts its connections (before the
// handshake) with the plain ones, sheds an idle one for a newcomer and never an authenticated one, lets an upgraded wss socket go, and
// swaps the certificate for new connections without a restart.
import { X509Certificate } from 'node:crypto'
import net from 'node:net'
import tls from 'node:tls'
import t, { type Test } from 'tap'
import { createHttpHost } from '../../../../runtime/host/http.ts'
import { buildRouter } from '../../../../runtime/host/router.ts'
import { makeSelfSigned } from '../../../../runtime/host/tls/self-signed.ts'
import { testGateway } from '../../../helpers/gateway.ts'
import { until } from '../../../helpers/until.ts'

const pairOf = () => {
  const made = makeSelfSigned({ names: ['localhost'], addresses: ['127.0.0.1'], now: new Date() })
  return { cert: made.certPem, key: made.keyPem }
}

function secureConnect(port: number): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => resolve(socket))
    socket.once('error', reject)
  })
}

async function host(t: Test) {
  const gw = await testGateway()
  const router = buildRouter((await import('../../../../functions/_manifest.gen.ts')).manifest, gw.services)
  const httpHost = createHttpHost(router, gw.services.log, { tls: true, limits: { maxConnections: 2, maxPerAddress: 2 } })
  httpHost.setCertificate(pairOf())
  const port = await httpHost.listen(0, '127.0.0.1')
  const securePort = await httpHost.listenSecure(0, '127.0.0.1')
  t.teardown(() => httpHost.close(100))
  return { httpHost, gw, port, securePort }
}

/** GET `path` on a kept-alive TLS connection; resolves with the status line's code. */
function secureGet(socket: tls.TLSSocket, path: string, headers = ''): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1')
      const head = /^HTTP\/1\.1 (\d+)[\s\S]*?\r\ncontent-length: (\d+)\r\n[\s\S]*?\r\n\r\n/i.exec(text)
      if (head && text.length >= head[0].length + Number(head[2])) {
        socket.off('data', onData)
        resolve(head[1])
      }
    }
    socket.on('data', onData)
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`)
  })
}

const closedSoon = (socket: tls.TLSSocket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())))

t.test('TLS and plain connections share one cap; a newcomer sheds an idle one, the plain port too', async (t) => {
  const { httpHost, port, securePort } = await host(t)
  const first = await secureConnect(securePort)
  const second = await secureConnect(securePort)
  t.equal(httpHost.connections, 2)
  const third = await secureConnect(securePort)
  await closedSoon(first)
  t.pass('the oldest TLS connection that never sent a request was shed for the third')
  t.notOk(second.destroyed)
  t.equal(httpHost.connections, 2, 'still two counted')
  // The plain port shares the cap: its newcomer is served by shedding the next idle TLS one.
  const answer = await new Promise<string>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /api/v2 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'))
    let text = ''
    socket.on('data', (chunk) => (text += chunk))
    socket.on('close', () => resolve(text))
  })
  t.match(answer, /^HTTP\/1\.1 200/)
  await closedSoon(second)
  third.destroy()
  await until(() => httpHost.connections === 0)
  const again = await secureConnect(securePort)
  t.ok(again.authorized === false && again.encrypted, 'a place is free again')
  again.destroy()
})

t.test('an HTTPS connection that carried an authenticated request is never shed', async (t) => {
  const { httpHost, gw, securePort } = await host(t)
  const token = await gw.issueToken()
  const board = await secureConnect(securePort)
  t.equal(await secureGet(board, '/api/v2/accesstoken', `Authorization: Bearer ${token}\r\n`), '200')
  const idle = await secureConnect(securePort)
  t.equal(httpHost.connections, 2)
  const newcomer = await secureConnect(securePort)
  await closedSoon(idle)
  t.notOk(board.destroyed, 'the board over HTTPS stays; the idle connection made room')
  t.equal(await secureGet(board, '/api/v2/accesstoken', `Authorization: Bearer ${token}\r\n`), '200', 'and is still served')
  // Both places now hold the board and the newcomer (never sent a request): one more sheds the newcomer.
  const next = await secureConnect(securePort)
  await closedSoon(newcomer)
  t.notOk(board.destroyed, 'still there')
  next.destroy()
})

t.test('a new certificate is served to new connections at once', async (t) => {
  const { httpHost, securePort } = await host(t)
  const before = await secureConnect(securePort)
  const next = pairOf()
  httpHost.setCertificate(next)
  const after = await secureConnect(securePort)
  t.equal(new X509Certificate(after.getPeerCertificate().raw).fingerprint256, new X509Certificate(next.cert).fingerprint256)
  t.not(new X509Certificate(before.getPeerCertificate().raw).fingerprint256, new X509Certificate(next.cert).fingerprint256)
  before.destroy()
  after.destroy()
})

t.test('a host without tls has no secure side', async (t) => {
  const gw = await testGateway()
  const router = buildRouter([], gw.services)
  const plain = createHttpHost(router, gw.services.log)
  t.equal(plain.secureServer, undefined)
  t.throws(() => plain.setCertificate(pairOf()), /without tls/)
  t.throws(() => plain.listenSecure(0, '127.0.0.1'), /without tls/)
})

t.test('an upgraded TLS socket (wss) leaves the HTTP cap: the hub counts it', async (t) => {
  const { httpHost, securePort } = await host(t)
  const upgraded: import('node:stream').Duplex[] = []
  httpHost.secureServer!.on('upgrade', (_request, socket) => upgraded.push(socket))
  const socket = await secureConnect(securePort)
  t.teardown(() => socket.destroy())
  t.equal(httpHost.connections, 1)
  socket.write('GET /api/v2/websocket HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')
  await until(() => upgraded.length === 1)
  t.equal(httpHost.connections, 0, 'released at the upgrade, though the socket is open')
  t.notOk(upgraded[0]!.destroyed)
  upgraded[0]!.destroy()
})
