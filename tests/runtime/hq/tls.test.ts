// HQ's certificate files (hq.config.json `tls`): one that cannot be read, is not a
// certificate, or whose key is another's stops the start with an error naming the files and
// the problem, before anything is opened; a renewed pair is served without a restart, and a
// broken renewal leaves the pair in service.
import { copyFileSync, renameSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { HqConfigError } from '../../../lib/hq/config.ts'
import { followCertificate, readHqCertificate } from '../../../runtime/hq/tls.ts'
import { startHq } from '../../../runtime/hq/main.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'
import { makePki } from '../../lib/fleet/certs.ts'
import { hqConfig } from '../../lib/hq/fixtures.ts'

const dir = t.testdir({})
const pki = makePki(dir)

/** Puts a file in place at once (a renewal tool writes beside, then renames). */
function place(from: string, to: string): void {
  copyFileSync(from, `${to}.new`)
  renameSync(`${to}.new`, to)
}

t.test('a pair that cannot serve is a config error naming the files', async (t) => {
  t.match(readHqCertificate({ cert: pki.serverCert, key: pki.serverKey }).cert, /BEGIN CERTIFICATE/)
  const missing = path.join(dir, 'missing.crt')
  t.throws(() => readHqCertificate({ cert: missing, key: pki.serverKey }), { name: 'HqConfigError', message: `tls.cert ${missing}: cannot be read (ENOENT)` })
  t.throws(() => readHqCertificate({ cert: pki.serverCert, key: pki.rogueKey }), {
    name: 'HqConfigError',
    message: `tls.cert ${pki.serverCert}, tls.key ${pki.rogueKey}: the key does not belong to the certificate (their public keys differ)`,
  })
  t.throws(() => readHqCertificate({ cert: pki.serverKey, key: pki.serverKey }), { message: /holds no PEM certificate/ })
  t.throws(() => readHqCertificate({ cert: pki.serverCert, key: pki.serverKey }, new Date(Date.now() + 10 * 86_400_000)), {
    message: /the certificate expired on/,
  })
})

t.test('startHq stops on such a pair before opening PostgreSQL', async (t) => {
  // Nothing listens at this PostgreSQL URL: the start fails on the pair first, at once.
  const config = hqConfig({
    postgresUrl: 'postgres://hq@127.0.0.1:1/hq',
    brokerUrl: 'mqtt://127.0.0.1:1',
    instanceId: 'a',
    tls: { cert: pki.serverCert, key: pki.rogueKey },
  })
  await t.rejects(startHq({ config, log: memoryLogger('error').log }), HqConfigError)
  await t.rejects(startHq({ config, log: memoryLogger('error').log }), { message: /the key does not belong to the certificate/ })
})

t.test('a renewed pair is served without a restart; a broken renewal keeps the one in service', async (t) => {
  const files = { cert: path.join(dir, 'hq.crt'), key: path.join(dir, 'hq.key') }
  copyFileSync(pki.serverCert, files.cert)
  copyFileSync(pki.serverKey, files.key)
  const first = readHqCertificate(files)
  const served: string[] = []
  const logs = memoryLogger('info')
  const stop = followCertificate(files, first, (pair) => served.push(pair.cert), logs.log, 20)
  t.teardown(stop)
  // Half a renewal: the new certificate, the old key.
  place(pki.clientCert, files.cert)
  await until(() => logs.lines().some((line) => /cannot be served/.test(String(line.msg))), 'the broken pair is reported')
  t.same(served, [], 'the pair in service stays')
  place(pki.clientKey, files.key)
  await until(() => served.length === 1, 'the renewed pair is served')
  t.equal(served[0], readHqCertificate(files).cert)
  t.equal(logs.lines().filter((line) => /cannot be served/.test(String(line.msg))).length, 1, 'a problem is said once')
})
