// Run as root (sudo gateway radio probe), a command that writes into the data dir hands what
// it wrote back to the data dir's owner, the service user, who must still read its network key.
import { chownSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { parseConfig } from '../../../lib/config.ts'
import { giveToDataDirOwner, type OwnershipOps } from '../../../runtime/cli/data-dir-owner.ts'
import { probeRadio } from '../../../runtime/cli/radio-probe.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

const serviceUid = 4321
const serviceGid = 4322
const isRoot = process.geteuid?.() === 0

function everything(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map((name) => path.join(dir, String(name)))
}

t.test('a probe run as root leaves every file it wrote to the data dir owned by the service user', { skip: !isRoot && 'needs root' }, async (t) => {
  const dataDir = t.testdir({ 'kept.txt': 'x' })
  chownSync(dataDir, serviceUid, serviceGid)
  chownSync(path.join(dataDir, 'kept.txt'), serviceUid, serviceGid)
  // The network key the probe writes on a first start (the fake coordinator-free path: a missing port).
  const config = parseConfig({ dataDir, radio: { kind: 'zigbee', adapter: 'ember', serialPort: '/dev/ttyUSB-owner-missing' } })
  // The start ends by the missing port's own failure: the probe's limit runs on a clock that
  // never moves, so a busy machine cannot end the start before the key is written (a 4 s limit
  // did, under a load of 100).
  await probeRadio({ config, timeoutMs: 4000, list: async () => [], process: { clock: new ManualClock() } })
  const files = everything(dataDir)
  t.ok(
    files.some((file) => file.endsWith(path.join('zigbee', 'network.json'))),
    'the probe wrote the network credentials',
  )
  t.ok(files.length > 2, 'and the settings store')
  for (const file of files) {
    const { uid, gid } = lstatSync(file)
    t.same({ uid, gid }, { uid: serviceUid, gid: serviceGid }, path.relative(dataDir, file))
  }
})

t.test('links are changed themselves, never followed; nothing is done for a root-owned data dir', { skip: !isRoot && 'needs root' }, async (t) => {
  const outside = t.testdir({ 'target.txt': 'outside' })
  const dataDir = path.join(outside, 'data')
  mkdirSync(path.join(dataDir, 'zigbee'), { recursive: true })
  symlinkSync(path.join(outside, 'target.txt'), path.join(dataDir, 'zigbee', 'link'))
  t.same(giveToDataDirOwner(dataDir), [], 'root owns it: nothing to hand over')
  chownSync(dataDir, serviceUid, serviceGid)
  const changed = giveToDataDirOwner(dataDir)
  t.same(changed.map((file) => path.relative(dataDir, file)).sort(), ['zigbee', path.join('zigbee', 'link')])
  t.equal(lstatSync(path.join(outside, 'target.txt')).uid, 0, 'the file the link points to is not touched')
  t.equal(lstatSync(path.join(dataDir, 'zigbee', 'link')).uid, serviceUid)
})

t.test('not root: nothing is changed (and nothing read)', async (t) => {
  const calls: string[] = []
  const ops: OwnershipOps = {
    uid: () => 1000,
    lstat: () => (calls.push('lstat'), { uid: 1, gid: 1, isDirectory: () => false, isSymbolicLink: () => false }),
    readdir: () => (calls.push('readdir'), []),
    lchown: () => void calls.push('lchown'),
  }
  t.same(giveToDataDirOwner('/data', ops), [])
  t.same(calls, [])
})

t.test('as root, with the file system given: entries of other owners are handed over, a vanished one skipped', async (t) => {
  const tree: Record<string, { uid: number; gid: number; dir?: string[] }> = {
    '/data': { uid: 7, gid: 8, dir: ['a', 'gone', 'sub'] },
    '/data/a': { uid: 0, gid: 0 },
    '/data/sub': { uid: 7, gid: 8, dir: ['b'] },
    '/data/sub/b': { uid: 7, gid: 0 },
  }
  const chowned: string[] = []
  const ops: OwnershipOps = {
    uid: () => 0,
    lstat: (file) => {
      const entry = tree[file]
      if (!entry) throw new Error('ENOENT')
      return { uid: entry.uid, gid: entry.gid, isDirectory: () => entry.dir !== undefined, isSymbolicLink: () => false }
    },
    readdir: (dir) => tree[dir]!.dir!,
    lchown: (file, uid, gid) => void chowned.push(`${file} ${uid}:${gid}`),
  }
  t.same(giveToDataDirOwner('/data', ops), ['/data/a', '/data/sub/b'])
  t.same(chowned, ['/data/a 7:8', '/data/sub/b 7:8'])
  t.same(giveToDataDirOwner('/missing', ops), [], 'no data dir: nothing to do')
})
