// HTTPS beside plain HTTP: a v2 client trusting only the box's own certificate gets the same
// answers over TLS, the WebSocket feed works over wss, plain clients on the HTTP port are
// unchanged, and the fingerprint the API shows is the one the client was served.
import { createHash, X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type tls from 'node:tls'
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { parseConfig } from '../../../../lib/config.ts'
import { sendControl } from '../../../../runtime/control/control.ts'
import type { RunningGateway } from '../../../../runtime/wiring/main.ts'
import { startCheckedGateway } from '../../../helpers/checked-gateway.ts'
import { memoryLogger } from '../../../helpers/memory-logger.ts'

interface Answer {
  status: number
  body: Record<string, any>
  certificate: tls.PeerCertificate
}

/** A request over TLS that trusts only `ca` (no system CAs, names checked). */
function secureJson(port: number, ca: string, method: string, target: string, token?: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        ca,
        agent: false,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (response) => {
        const certificate = (response.socket as tls.TLSSocket).getPeerCertificate()
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text), certificate }))
      },
    )
    request.on('error', reject)
    request.end(body ? JSON.stringify(body) : undefined)
  })
}

/**
 * A gateway on a data dir of its own, stopped before the dir is removed: with t.testdir() the
 * fixture's removal ran first, raced the running gateway's writes (ENOTEMPTY on a busy machine)
 * and, throwing, kept the gateway from being stopped, so the file waited for tap's limit.
 */
async function gatewayWith(t: Test, tlsSettings?: { enabled: boolean }): Promise<{ gateway: RunningGateway; dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'https-'))
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false }, ...(tlsSettings ? { tls: tlsSettings } : {}) })
  const gateway = await startCheckedGateway({ config, log: memoryLogger('warn').log }).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  t.teardown(async () => {
    await gateway.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  return { gateway, dataDir }
}

async function started(t: Test): Promise<{ gateway: RunningGateway; dataDir: string; cert: string }> {
  const { gateway, dataDir } = await gatewayWith(t)
  return { gateway, dataDir, cert: readFileSync(path.join(dataDir, 'tls', 'self-signed.crt'), 'utf8') }
}

t.test('a v2 client trusting the box certificate: token, order, list over HTTPS; HTTP unchanged', async (t) => {
  const { gateway, dataDir, cert } = await started(t)
  t.type(gateway.securePort, 'number')
  t.not(gateway.securePort, gateway.port)
  t.equal(statSync(path.join(dataDir, 'tls', 'self-signed.key')).mode & 0o777, 0o600, 'the key is owner-only')
  await sendControl(dataDir, 'button.press')
  const generated = await secureJson(gateway.securePort!, cert, 'GET', '/api/v2/accesstoken/generate?name=tls-pos')
  t.equal(generated.status, 201)
  const token = generated.body.token.token as string
  const created = await secureJson(gateway.securePort!, cert, 'POST', '/api/v2/activeorders', token, { name: 41, orderType: 'TO_GO' })
  t.equal(created.status, 200, JSON.stringify(created.body))
  const list = await secureJson(gateway.securePort!, cert, 'GET', '/api/v2/activeorders', token)
  t.same(
    list.body.items.map((o: { name: number }) => o.name),
    [41],
  )
  // The same token and order through the specification's plain port.
  const plain = await fetch(`http://127.0.0.1:${gateway.port}/api/v2/activeorders`, { headers: { authorization: `Bearer ${token}` } })
  t.same(
    ((await plain.json()) as any).items.map((o: { name: number }) => o.name),
    [41],
  )

  // The fingerprint GET /api/v2/gateway shows is the certificate the client was served.
  const status = await secureJson(gateway.securePort!, cert, 'GET', '/api/v2/gateway', token)
  const served = new X509Certificate(status.certificate.raw)
  t.equal(status.body.gatewayStatus.tls.fingerprintSha256, served.fingerprint256)
  t.equal(
    status.body.gatewayStatus.tls.spkiSha256,
    createHash('sha256')
      .update(served.publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64'),
  )
  t.equal(status.body.gatewayStatus.tls.port, gateway.securePort)
  t.equal(status.body.gatewayStatus.tls.source, 'self-signed')
  t.ok(status.body.gatewayStatus.tls.subjectAltNames.includes('IP Address:127.0.0.1'))
  // And the unauthenticated description the board's sign-in screen reads.
  const open = await secureJson(gateway.securePort!, cert, 'GET', '/api/v2/gateway/tls')
  t.equal(open.status, 200)
  t.equal(open.body.tls.fingerprintSha256, served.fingerprint256)
})

t.test('a client that does not trust the certificate is refused; the guards apply on HTTPS too', async (t) => {
  const { gateway, cert } = await started(t)
  await t.rejects(new Promise((resolve, reject) => https.get({ host: '127.0.0.1', port: gateway.securePort, agent: false }, resolve).on('error', reject)), {
    code: /SELF_SIGNED|UNABLE_TO_VERIFY/,
  })
  const foreign = await new Promise<Answer>((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port: gateway.securePort,
          ca: cert,
          agent: false,
          servername: 'localhost',
          path: '/api/v2/activeorders',
          headers: { host: 'attacker.example' },
        },
        (response) => {
          let text = ''
          response.on('data', (chunk) => (text += chunk))
          response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text), certificate: {} as tls.PeerCertificate }))
        },
      )
      .on('error', reject)
  })
  t.equal(foreign.status, 421, 'an unknown Host is refused over HTTPS as over HTTP')
})

t.test('the WebSocket feed over wss', async (t) => {
  const { gateway, dataDir, cert } = await started(t)
  await sendControl(dataDir, 'button.press')
  const token = (await secureJson(gateway.securePort!, cert, 'GET', '/api/v2/accesstoken/generate?name=tls-kds')).body.token.token as string
  const socket = new WebSocket(`wss://127.0.0.1:${gateway.securePort}/api/v2/websocket`, { ca: cert })
  t.teardown(() => socket.terminate())
  const frames: any[] = []
  const waitFor = (test: (frame: any) => boolean) =>
    new Promise<any>((resolve, reject) => {
      const found = frames.find(test)
      if (found) return resolve(found)
      const onMessage = (data: WebSocket.RawData) => {
        const frame = JSON.parse(String(data))
        if (test(frame)) {
          socket.off('message', onMessage)
          resolve(frame)
        }
      }
      socket.on('message', onMessage)
      socket.once('error', reject)
    })
  socket.on('message', (data) => frames.push(JSON.parse(String(data))))
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  socket.send(JSON.stringify({ accesstoken: token }))
  t.equal((await waitFor((f) => f.type === 'ACTIVE_ORDERS')).count, 0)
  await secureJson(gateway.securePort!, cert, 'POST', '/api/v2/activeorders', token, { name: 77, orderType: 'TO_GO' })
  const change = await waitFor((f) => f.type === 'ORDER_CREATED')
  t.equal(change.name, '77')
})

t.test('tls.enabled false: no HTTPS, no certificate, status null', async (t) => {
  const { gateway, dataDir } = await gatewayWith(t, { enabled: false })
  t.equal(gateway.securePort, undefined)
  t.equal(gateway.services.tlsStatus.get(), null)
  t.equal(await sendControl(dataDir, 'tls.status'), null)
})
