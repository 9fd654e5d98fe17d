// Fetching a release from HQ for a rollout: by range, resumed after a cut, at most the
// bandwidth asked for, checked against the announced SHA-256 (a damaged one thrown away);
// over HTTPS only from a server whose certificate the configured CA signed; no redirect
// followed.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import path from 'node:path'
import t from 'tap'
import { fetchRelease } from '../../../runtime/upgrade/fetch-release.ts'
import { makePki } from '../../lib/fleet/certs.ts'

const archive = randomBytes(300_000)
const sha256 = createHash('sha256').update(archive).digest('hex')

/** Serves `archive` by range to the holder of the secret; `cutAfter` requests answer 500 once that many were served. */
async function server(
  t: { teardown(fn: () => unknown): void },
  options: { cutAfter?: number; body?: Buffer; tls?: { cert: Buffer; key: Buffer }; redirectTo?: string } = {},
) {
  const ranges: string[] = []
  const body = options.body ?? archive
  const listener: http.RequestListener = (req, res) => {
    if (options.redirectTo) return res.writeHead(301, { location: options.redirectTo }).end()
    if (req.headers['x-release-secret'] !== 's3cret') return res.writeHead(404).end()
    if (options.cutAfter !== undefined && ranges.length >= options.cutAfter) return res.writeHead(500).end()
    const match = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range))!
    ranges.push(`${match[1]}-${match[2]}`)
    const [start, end] = [Number(match[1]), Number(match[2])]
    res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${body.length}` }).end(body.subarray(start, end + 1))
  }
  const srv = options.tls ? https.createServer(options.tls, listener) : http.createServer(listener)
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => srv.close(resolve)))
  srv.on('tlsClientError', () => undefined)
  return { url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${(srv.address() as { port: number }).port}/archive`, ranges }
}

t.test('by range, resumed after a cut, capped, checked', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'tracker-gateway-0.2.0.tar.gz')
  const cut = await server(t, { cutAfter: 2 })
  const options = { url: cut.url, secret: 's3cret', file, sha256, size: archive.length, bytesPerSecond: 100_000 }
  await t.rejects(fetchRelease(options), { message: /HQ answered HTTP 500 for bytes 200000-299999/, kind: 'transient' }, 'HQ busy: worth trying again')
  t.same(cut.ranges, ['0-99999', '100000-199999'], 'pieces of a second each')
  t.equal(readFileSync(`${file}.part`).length, 200_000, 'what arrived is kept')
  t.notOk(existsSync(file))

  const whole = await server(t)
  await fetchRelease({ ...options, url: whole.url })
  t.same(whole.ranges, ['200000-299999'], 'resumed where it stopped')
  t.same(readFileSync(file), archive)
  t.notOk(existsSync(`${file}.part`))

  const again = await server(t)
  const fresh = path.join(dir, 'again.tar.gz')
  const began = Date.now()
  await fetchRelease({ ...options, url: again.url, file: fresh, bytesPerSecond: 150_000 })
  t.ok(Date.now() - began >= 1000, `300 kB at 150 kB/s takes at least a second (took ${Date.now() - began} ms)`)
})

t.test('a damaged download is thrown away; a wrong secret is refused', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'a.tar.gz')
  const damaged = Buffer.from(archive)
  damaged[1000] ^= 1
  const bad = await server(t, { body: damaged })
  await t.rejects(fetchRelease({ url: bad.url, secret: 's3cret', file, sha256, size: archive.length, bytesPerSecond: 10_000_000 }), {
    message: /SHA-256 is \w+, HQ announced/,
    kind: 'checksum',
  })
  t.notOk(existsSync(file))
  t.notOk(existsSync(`${file}.part`), 'the damaged bytes are not resumed from')
  writeFileSync(`${file}.part`, randomBytes(400_000))
  const good = await server(t)
  await t.rejects(fetchRelease({ url: good.url, secret: 'wrong', file, sha256, size: archive.length, bytesPerSecond: 10_000_000 }), {
    message: /HTTP 404/,
    kind: 'refused',
  })
  await fetchRelease({ url: good.url, secret: 's3cret', file, sha256, size: archive.length, bytesPerSecond: 10_000_000 })
  t.same(readFileSync(file), archive, 'a .part larger than the archive is started again')
})

t.test('over HTTPS: only a certificate the configured CA signed; no redirect followed', async (t) => {
  const dir = t.testdir({})
  const pki = makePki(dir)
  const tls = { cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey) }
  const hq = await server(t, { tls })
  const options = { url: hq.url, secret: 's3cret', sha256, size: archive.length, bytesPerSecond: 10_000_000 }
  const file = path.join(dir, 'a.tar.gz')
  await fetchRelease({ ...options, file, trust: { ca: readFileSync(pki.ca), source: 'fleet.rollout.ca chain-ca.pem' } })
  t.same(readFileSync(file), archive)
  t.same(hq.ranges, ['0-299999'])

  const other = path.join(dir, 'b.tar.gz')
  await t.rejects(fetchRelease({ ...options, file: other, trust: { ca: readFileSync(pki.rogueCa), source: 'fleet.rollout.ca rogue.pem' } }), {
    name: 'ReleaseDownloadError',
    message:
      /^HQ's certificate at 127\.0\.0\.1:\d+ is refused \(unable to verify the first certificate, UNABLE_TO_VERIFY_LEAF_SIGNATURE\): this site trusts only the CA of fleet\.rollout\.ca rogue\.pem$/,
    kind: 'refused',
  })
  await t.rejects(fetchRelease({ ...options, file: other }), { message: /this site trusts only the public CAs/ })
  t.notOk(existsSync(`${other}.part`), 'nothing written from a refused HQ')

  const plain = await server(t)
  const redirecting = await server(t, { tls, redirectTo: plain.url })
  await t.rejects(fetchRelease({ ...options, url: redirecting.url, file: other, trust: { ca: readFileSync(pki.ca), source: 'x' } }), {
    message: /HQ answered HTTP 301 .*: redirects are not followed/,
    kind: 'refused',
  })
  t.same(plain.ranges, [], 'never sent to plain http behind a redirect')
})
