// The box's own certificate in the data dir: made once (0600 key), kept while it names the
// box's names and addresses, reissued with the same key when they change or its end nears.
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { describeCertificate } from '../../../../runtime/host/tls/certificate-info.ts'
import { ensureSelfSigned, installedPair, installPair, removeInstalledPair } from '../../../../runtime/host/tls/certificate-files.ts'
import { expectedAltNames, localNames } from '../../../../runtime/host/tls/local-names.ts'
import { makeSelfSigned } from '../../../../runtime/host/tls/self-signed.ts'
import { fullDisk } from '../../../helpers/full-disk.ts'

const now = new Date('2026-11-25T12:00:00Z')
const dayMs = 24 * 60 * 60 * 1000
const box = { names: ['box', 'box.local', 'localhost'], addresses: ['127.0.0.1', '::1', '192.168.1.20'] }

t.test('made at first start, kept, reissued with the same key for a new address or near its end', async (t) => {
  const dataDir = t.testdir()
  const first = await ensureSelfSigned(dataDir, box, now)
  t.equal(first.reissued, 'none yet')
  t.equal(first.pair.source, 'self-signed')
  t.equal(statSync(path.join(dataDir, 'tls', 'self-signed.key')).mode & 0o777, 0o600)
  t.equal(statSync(path.join(dataDir, 'tls')).mode & 0o777, 0o700)
  t.same(describeCertificate(first.pair.cert).subjectAltNames, expectedAltNames(box))

  const same = await ensureSelfSigned(dataDir, box, new Date(now.getTime() + 100 * dayMs))
  t.equal(same.reissued, undefined, 'nothing changed: the same certificate')
  t.equal(same.pair.cert, first.pair.cert)
  // An address the box lost is no reason (the certificate still names every current one).
  t.equal((await ensureSelfSigned(dataDir, { ...box, addresses: ['127.0.0.1'] }, now)).reissued, undefined)

  const moved = await ensureSelfSigned(dataDir, { ...box, addresses: [...box.addresses, '10.1.2.3'] }, now)
  t.equal(moved.reissued, 'does not name IP Address:10.1.2.3')
  t.ok(describeCertificate(moved.pair.cert).subjectAltNames.includes('IP Address:10.1.2.3'))
  t.equal(describeCertificate(moved.pair.cert).spkiSha256, describeCertificate(first.pair.cert).spkiSha256, 'same key')
  t.equal(moved.pair.key, first.pair.key)
  t.equal(readFileSync(path.join(dataDir, 'tls', 'self-signed.crt'), 'utf8'), moved.pair.cert, 'stored')

  const late = new Date(now.getTime() + 3630 * dayMs)
  t.equal((await ensureSelfSigned(dataDir, { ...box, addresses: [...box.addresses, '10.1.2.3'] }, late)).reissued, 'near its end of validity')
})

t.test('an unreadable certificate or key is replaced', async (t) => {
  const dataDir = t.testdir()
  await ensureSelfSigned(dataDir, box, now)
  writeFileSync(path.join(dataDir, 'tls', 'self-signed.crt'), 'garbage')
  t.equal((await ensureSelfSigned(dataDir, box, now)).reissued, 'unreadable')
  writeFileSync(path.join(dataDir, 'tls', 'self-signed.key'), 'garbage')
  writeFileSync(path.join(dataDir, 'tls', 'self-signed.crt'), makeSelfSigned({ ...box, now }).certPem)
  t.equal((await ensureSelfSigned(dataDir, { ...box, addresses: ['10.9.9.9'] }, now)).reissued, 'its key was unreadable')
})

t.test('the installed pair: stored owner-only, read back, removed', async (t) => {
  const dataDir = t.testdir()
  t.equal(installedPair(dataDir), undefined)
  t.equal(removeInstalledPair(dataDir), false)
  installPair(dataDir, { cert: 'C', key: 'K' })
  t.same(installedPair(dataDir), { cert: 'C', key: 'K', source: 'installed' })
  t.equal(statSync(path.join(dataDir, 'tls', 'installed.key')).mode & 0o777, 0o600)
  t.equal(removeInstalledPair(dataDir), true)
  t.equal(installedPair(dataDir), undefined)
})

t.test('local names: host name, its label, .local, localhost; addresses without link-local', async (t) => {
  const names = localNames('Pass-Box.lan', {
    lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true } as never],
    eth0: [
      { address: '192.168.1.20', family: 'IPv4' } as never,
      { address: 'fe80::1', family: 'IPv6' } as never,
      { address: 'fd00::20', family: 'IPv6' } as never,
    ],
  })
  t.same(names.names, ['pass-box.lan', 'pass-box', 'pass-box.local', 'pass-box.lan.local', 'localhost'])
  t.same(names.addresses, ['127.0.0.1', '::1', '192.168.1.20', 'fd00::20'])
  t.same(localNames('box.local', {}).names, ['box.local', 'box', 'localhost'])
})

t.test('a full disk: the certificate is made and served all the same, and says it was not stored', async (t) => {
  const dataDir = t.testdir()
  const disk = fullDisk(dataDir)
  t.teardown(() => disk.restore())
  const made = await ensureSelfSigned(dataDir, box, now)
  t.equal(made.reissued, 'none yet')
  t.equal(made.unstored, 'ENOSPC')
  t.same(describeCertificate(made.pair.cert).subjectAltNames, expectedAltNames(box))
  disk.free()
  const stored = await ensureSelfSigned(dataDir, box, now)
  t.equal(stored.reissued, 'none yet', 'nothing was stored: made again once there is space')
  t.equal(stored.unstored, undefined)
  t.equal((await ensureSelfSigned(dataDir, box, now)).reissued, undefined)
})
