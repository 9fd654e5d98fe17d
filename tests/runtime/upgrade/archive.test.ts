// What archive.ts refuses before anything is installed: an incoming dir others can open, an
// archive whose contents do not match its signed version, a missing signature (beside the
// file, or at the URL with .sig added).
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import t from 'tap'
import { bringArchive, privateDir, unpack } from '../../../runtime/upgrade/archive.ts'

t.test('incoming/ is made 0700; one that others can open is refused', async (t) => {
  const dir = t.testdir({})
  const made = privateDir(path.join(dir, 'incoming'))
  t.equal(made, path.join(dir, 'incoming'))
  const open = path.join(dir, 'open')
  mkdirSync(open)
  chmodSync(open, 0o755)
  t.throws(() => privateDir(open), { name: 'ReleaseRefusedError', message: /that only it can open \(0700\)/ })
})

t.test('an archive is unpacked only if it holds tracker-gateway-<signed version>/ with that version', async (t) => {
  const dir = t.testdir({})
  const archive = (name: string, version: string) => {
    const tree = path.join(dir, `tree-${name}-${version}`, name)
    mkdirSync(tree, { recursive: true })
    writeFileSync(path.join(tree, 'package.json'), JSON.stringify({ version }))
    const file = path.join(dir, `${name}-${version}.tar.gz`)
    execFileSync('tar', ['-czf', file, '-C', path.dirname(tree), name])
    return file
  }
  const verified = (file: string) => ({ archive: file, version: '1.0.0', sha256: '', keyId: '' })
  const app = await unpack(verified(archive('tracker-gateway-1.0.0', '1.0.0')), path.join(dir, 'u1'))
  t.equal(app, path.join(dir, 'u1', 'tracker-gateway-1.0.0'))
  await t.rejects(unpack(verified(archive('tracker-gateway-1.0.0', '0.9.0')), path.join(dir, 'u2')), /package.json says version 0.9.0, its signature 1.0.0/)
  await t.rejects(unpack(verified(archive('something-else', '1.0.0')), path.join(dir, 'u3')), /holds something-else, not one directory tracker-gateway-1.0.0/)
  writeFileSync(path.join(dir, 'junk.tar.gz'), 'not a tar')
  await t.rejects(unpack(verified(path.join(dir, 'junk.tar.gz')), path.join(dir, 'u4')), /does not unpack/)
})

t.test('an archive without its .sig beside it, or a file that is not there, is refused', async (t) => {
  const dir = t.testdir({ 'a.tar.gz': 'bytes', incoming: {} })
  await t.rejects(bringArchive(path.join(dir, 'a.tar.gz'), path.join(dir, 'incoming')), /unsigned: there is no .*a\.tar\.gz\.sig beside it/)
  await t.rejects(bringArchive(path.join(dir, 'none.tar.gz'), path.join(dir, 'incoming')), /cannot read .*none\.tar\.gz: ENOENT/)
})

t.test('from a URL: the archive and URL.sig are downloaded into incoming/; no .sig there means unsigned', async (t) => {
  const served = new Map([
    ['/r/a.tar.gz', 'archive bytes'],
    ['/r/a.tar.gz.sig', '{"signature":"..."}'],
    ['/r/b.tar.gz', 'archive bytes'],
  ])
  const server = createServer((request, response) => {
    const body = served.get(request.url ?? '')
    response.writeHead(body === undefined ? 404 : 200).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const dir = t.testdir({ incoming: {} })
  const brought = await bringArchive(`${base}/r/a.tar.gz`, path.join(dir, 'incoming'))
  t.same(brought, { archive: path.join(dir, 'incoming/a.tar.gz'), signature: path.join(dir, 'incoming/a.tar.gz.sig') })
  t.equal(readFileSync(brought.archive, 'utf8'), 'archive bytes')
  t.equal(readFileSync(brought.signature, 'utf8'), '{"signature":"..."}')
  await t.rejects(bringArchive(`${base}/r/b.tar.gz`, path.join(dir, 'incoming')), /the archive is unsigned: .*b\.tar\.gz\.sig does not exist/)
  await t.rejects(bringArchive(`${base}/r/none.tar.gz`, path.join(dir, 'incoming')), /cannot download the archive .*none\.tar\.gz: HTTP 404/)
})
