// Throw-away PKI for the TLS tests, made with openssl: a CA, a broker certificate for
// 127.0.0.1 and a client certificate signed by it, and a second CA with its own client
// certificate that the broker must refuse.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'

export interface TestPki {
  ca: string
  serverCert: string
  serverKey: string
  clientCert: string
  clientKey: string
  rogueCa: string
  rogueCert: string
  rogueKey: string
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
}

function makeCa(dir: string, name: string): void {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  ])
}

function makeLeaf(dir: string, ca: string, name: string, extensions: string): void {
  writeFileSync(path.join(dir, `${name}.ext`), extensions)
  openssl(dir, [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  ])
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  ])
}

export function makePki(dir: string): TestPki {
  makeCa(dir, 'ca')
  makeCa(dir, 'rogue-ca')
  makeLeaf(dir, 'ca', 'broker', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n')
  makeLeaf(dir, 'ca', 'site', 'extendedKeyUsage=clientAuth\n')
  makeLeaf(dir, 'rogue-ca', 'rogue', 'extendedKeyUsage=clientAuth\n')
  const file = (name: string) => path.join(dir, name)
  return {
    ca: file('ca.crt'),
    serverCert: file('broker.crt'),
    serverKey: file('broker.key'),
    clientCert: file('site.crt'),
    clientKey: file('site.key'),
    rogueCa: file('rogue-ca.crt'),
    rogueCert: file('rogue.crt'),
    rogueKey: file('rogue.key'),
  }
}

/** A client certificate from the test CA whose CN is `name` (a site's siteId, or hq-<instanceId>). */
export function makeClientCert(dir: string, name: string): { cert: string; key: string } {
  makeLeaf(dir, 'ca', name, 'extendedKeyUsage=clientAuth\n')
  return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) }
}
