// `gateway tls install|remove|status` against a real gateway (and with none running): a pair
// from "the restaurant's IT" is checked (key matches, valid now, both PEM), refused in words
// otherwise with nothing changed, and served at once without a restart.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import path from 'node:path'
import tls from 'node:tls'
import t, { type Test } from 'tap'
import { X509Certificate } from 'node:crypto'
import { ConfigError, parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { startGateway } from '../../../runtime/wiring/main.ts'
import { tlsCliCommand } from '../../../runtime/cli/tls-commands.ts'
import { statusCommand } from '../../../runtime/cli/status-command.ts'
import { makeSelfSigned } from '../../../runtime/host/tls/self-signed.ts'

const yearMs = 365 * 24 * 60 * 60 * 1000
const itPair = (now = new Date(), names = ['pass.restaurant.example']) => makeSelfSigned({ names, addresses: ['127.0.0.1'], now })

/** The fingerprint a new TLS connection to the port is served. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(new X509Certificate(socket.getPeerCertificate().raw).fingerprint256)
      socket.end()
    })
    socket.on('error', reject)
  })
}

/** A fresh directory under the test's own (t.testdir() itself is wiped at each call). */
function freshDir(t: Test): string {
  mkdirSync(t.testdirName, { recursive: true })
  return mkdtempSync(path.join(t.testdirName, 'd-'))
}

function files(t: Test, pair: { certPem: string; keyPem: string }, name: string): { cert: string; key: string } {
  const dir = freshDir(t)
  writeFileSync(path.join(dir, `${name}.crt`), pair.certPem)
  writeFileSync(path.join(dir, `${name}.key`), pair.keyPem)
  return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) }
}

async function start(t: Test, dataDir: string, tlsConfig: Record<string, unknown> = {}) {
  const logs = memoryLogger('info')
  const config = parseConfig({ dataDir, port: 0, host: '127.0.0.1', mdns: { enabled: false }, tls: tlsConfig })
  const gateway = await startGateway({ config, log: logs.log })
  t.teardown(() => gateway.stop())
  return { gateway, logs }
}

t.test('install refuses what cannot serve, in words, and changes nothing', async (t) => {
  const dataDir = path.join(freshDir(t), 'data')
  const { gateway } = await start(t, dataDir)
  const before = await servedFingerprint(gateway.securePort!)
  const good = itPair()
  const other = itPair()
  const expired = itPair(new Date(Date.now() - 11 * yearMs))
  const future = itPair(new Date(Date.now() + 2 * yearMs))
  const dir = freshDir(t)
  const fixtures: Record<string, string> = {
    'good.crt': good.certPem,
    'good.key': good.keyPem,
    'other.key': other.keyPem,
    'expired.crt': expired.certPem,
    'expired.key': expired.keyPem,
    'future.crt': future.certPem,
    'future.key': future.keyPem,
    'garbage.crt': 'not a certificate',
    'encrypted.key': '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n',
  }
  for (const [name, text] of Object.entries(fixtures)) writeFileSync(path.join(dir, name), text)
  const file = (name: string) => path.join(dir, name)
  const install = (cert: string | undefined, key: string | undefined) =>
    tlsCliCommand(['install'], { cert: cert && file(cert), key: key && file(key) }, dataDir)
  await t.rejects(install('good.crt', 'other.key'), { message: 'the key does not belong to the certificate (their public keys differ)' })
  await t.rejects(install('expired.crt', 'expired.key'), { message: /^the certificate expired on \d{4}-/ })
  await t.rejects(install('future.crt', 'future.key'), { message: /^the certificate is not valid before .*clock/ })
  await t.rejects(install('garbage.crt', 'good.key'), { message: /holds no PEM certificate/ })
  await t.rejects(install('good.crt', 'encrypted.key'), { message: /no unencrypted PEM private key/ })
  await t.rejects(install('good.crt', 'missing.key'), { message: /cannot read --key .*missing.key: ENOENT/ })
  await t.rejects(install('good.crt', undefined), { message: /usage: gateway tls install --cert FILE --key FILE/ })
  await t.rejects(tlsCliCommand(['frobnicate'], {}, dataDir), { message: /usage/ })
  t.equal(await servedFingerprint(gateway.securePort!), before, 'still the box certificate')
  t.match(gateway.services.tlsStatus.get(), { source: 'self-signed', fingerprintSha256: before })
})

t.test('install serves the pair at once; status shows it; remove goes back to the box certificate', async (t) => {
  const dataDir = path.join(freshDir(t), 'data')
  const { gateway } = await start(t, dataDir)
  const own = await servedFingerprint(gateway.securePort!)
  const pair = itPair()
  const wanted = new X509Certificate(pair.certPem).fingerprint256
  const { cert, key } = files(t, pair, 'it')
  const output = await tlsCliCommand(['install'], { cert, key }, dataDir)
  t.match(output, /installed and served from now on \(no restart needed\)/)
  t.match(output, wanted)
  t.equal(await servedFingerprint(gateway.securePort!), wanted, 'a new connection gets the installed certificate')
  t.match(await tlsCliCommand(['status'], {}, dataDir), new RegExp(`the installed certificate[\\s\\S]*SHA-256 fingerprint: ${wanted}`))
  const status = await statusCommand(freshDir(t))([], {}, dataDir)
  t.match(status, `https: port ${gateway.securePort}`)
  t.match(status, `SHA-256 fingerprint: ${wanted}`)
  // A client of the restaurant's IT trusting only their certificate, by its name.
  const answer = await new Promise<number>((resolve, reject) =>
    https
      .get(
        { host: '127.0.0.1', port: gateway.securePort, servername: 'pass.restaurant.example', ca: pair.certPem, path: '/api/v2', agent: false },
        (response) => {
          response.resume()
          resolve(response.statusCode!)
        },
      )
      .on('error', reject),
  )
  t.equal(answer, 200)
  t.match(await tlsCliCommand(['remove'], {}, dataDir), /removed the installed certificate\nhttps: port \d+, the box's own certificate/)
  t.equal(await servedFingerprint(gateway.securePort!), own)
  t.match(await tlsCliCommand(['remove'], {}, dataDir), /no certificate was installed/)
})

t.test('with no gateway running: checked and stored, served at the next start', async (t) => {
  const dataDir = path.join(freshDir(t), 'data')
  const pair = itPair()
  const { cert, key } = files(t, pair, 'it')
  const other = files(t, itPair(), 'other')
  await t.rejects(tlsCliCommand(['install'], { cert, key: other.key }, dataDir), { message: /the key does not belong/ })
  t.match(await tlsCliCommand(['install'], { cert, key }, dataDir), /no gateway runs on .*: it serves this certificate when it starts/)
  const { gateway } = await start(t, dataDir)
  t.equal(await servedFingerprint(gateway.securePort!), new X509Certificate(pair.certPem).fingerprint256)
  t.equal(gateway.services.tlsStatus.get()?.source, 'installed')
})

t.test('an installed certificate that expired since: the box certificate serves, the log says why', async (t) => {
  const dataDir = path.join(freshDir(t), 'data')
  const pair = itPair()
  const { cert, key } = files(t, pair, 'it')
  await tlsCliCommand(['install'], { cert, key }, dataDir)
  // Ten years on (the same files): expired.
  const expired = itPair(new Date(Date.now() - 11 * yearMs))
  writeFileSync(path.join(dataDir, 'tls', 'installed.crt'), expired.certPem)
  writeFileSync(path.join(dataDir, 'tls', 'installed.key'), expired.keyPem)
  const { gateway, logs } = await start(t, dataDir)
  t.equal(gateway.services.tlsStatus.get()?.source, 'self-signed')
  t.ok(logs.text().includes('installed TLS certificate cannot be used'), 'logged')
})

t.test('tls.certFile and tls.keyFile: served as configured; a bad pair stops start-up naming the keys', async (t) => {
  const pair = itPair()
  const { cert, key } = files(t, pair, 'configured')
  const { gateway } = await start(t, path.join(freshDir(t), 'data'), { certFile: cert, keyFile: key })
  t.equal(gateway.services.tlsStatus.get()?.source, 'config')
  t.equal(await servedFingerprint(gateway.securePort!), new X509Certificate(pair.certPem).fingerprint256)
  const other = files(t, itPair(), 'other')
  const config = parseConfig({
    dataDir: path.join(freshDir(t), 'data2'),
    port: 0,
    host: '127.0.0.1',
    mdns: { enabled: false },
    tls: { certFile: cert, keyFile: other.key },
  })
  await t.rejects(startGateway({ config, log: memoryLogger('fatal').log }), {
    constructor: ConfigError,
    message: /tls.certFile .*: the key does not belong to the certificate/,
  })
  t.throws(() => parseConfig({ tls: { certFile: cert } }), { message: /"tls.certFile": certFile and keyFile go together/ })
  t.equal(readFileSync(cert, 'utf8'), pair.certPem)
})

t.test('HTTPS off: install checks and stores for when it is on; status says it is off', async (t) => {
  const dataDir = path.join(freshDir(t), 'data')
  await start(t, dataDir, { enabled: false })
  const pair = itPair()
  const { cert, key } = files(t, pair, 'it')
  t.match(await tlsCliCommand(['install'], { cert, key }, dataDir), /installed in .*tls; HTTPS is off \(tls.enabled is false in the config\)/)
  t.equal(readFileSync(path.join(dataDir, 'tls', 'installed.crt'), 'utf8'), pair.certPem)
  t.equal(await tlsCliCommand(['status'], {}, dataDir), 'HTTPS is off (tls.enabled is false in the config)')
  const other = files(t, itPair(), 'other')
  await t.rejects(tlsCliCommand(['install'], { cert, key: other.key }, dataDir), { message: /the key does not belong/ })
  t.match(await tlsCliCommand(['remove'], {}, dataDir), /removed the installed certificate\nHTTPS is off/)
})
