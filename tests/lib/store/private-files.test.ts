import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { privateDataDir } from '../../../lib/store/private-files.ts'

const mode = (file: string) => statSync(file).mode & 0o777

t.test('the data dir and everything under it become owner-only; symlinks are left alone', async (t) => {
  const root = t.testdir()
  const outside = path.join(root, 'outside.txt')
  writeFileSync(outside, 'x', { mode: 0o644 })
  chmodSync(outside, 0o644)
  const dir = path.join(root, 'data')
  mkdirSync(path.join(dir, 'zigbee'), { recursive: true, mode: 0o755 })
  chmodSync(dir, 0o755)
  writeFileSync(path.join(dir, 'webhooks.db'), '{}\n')
  chmodSync(path.join(dir, 'webhooks.db'), 0o644)
  writeFileSync(path.join(dir, 'zigbee', 'network.json'), '{}')
  chmodSync(path.join(dir, 'zigbee', 'network.json'), 0o666)
  symlinkSync(outside, path.join(dir, 'link'))
  privateDataDir(dir)
  t.equal(mode(dir), 0o700)
  t.equal(mode(path.join(dir, 'zigbee')), 0o700)
  t.equal(mode(path.join(dir, 'webhooks.db')), 0o600)
  t.equal(mode(path.join(dir, 'zigbee', 'network.json')), 0o600)
  t.equal(mode(outside), 0o644, 'a symlink target outside is not touched')
})

t.test('a missing data dir is created owner-only', async (t) => {
  const dir = path.join(t.testdir(), 'a', 'b')
  privateDataDir(dir)
  t.equal(mode(dir), 0o700)
})

t.test(
  "a file another user owns (copied in as root) keeps its mode and the rest is still made private; the data dir itself must be the gateway's",
  async (t) => {
    const dir = t.testdir({ 'theirs.txt': 'kept', 'ours.db': '{}\n', sub: { 'theirs.json': '{}' } })
    for (const file of ['theirs.txt', 'ours.db', 'sub/theirs.json']) chmodSync(path.join(dir, file), 0o644)
    const notOwner = (file: string, fileMode: number) => {
      if (path.basename(file).startsWith('theirs')) throw Object.assign(new Error(`EPERM: operation not permitted, chmod '${file}'`), { code: 'EPERM' })
      chmodSync(file, fileMode)
    }
    const foreign = privateDataDir(dir, notOwner)
    t.same(foreign.sort(), [path.join(dir, 'sub', 'theirs.json'), path.join(dir, 'theirs.txt')])
    t.equal(mode(path.join(dir, 'ours.db')), 0o600)
    t.equal(mode(path.join(dir, 'theirs.txt')), 0o644)
    t.equal(mode(dir), 0o700)
    t.throws(
      () =>
        privateDataDir(dir, (file) => {
          throw Object.assign(new Error(`EPERM: operation not permitted, chmod '${file}'`), { code: 'EPERM' })
        }),
      { code: 'EPERM' },
      'a data dir that is not its own still stops the gateway',
    )
    t.throws(
      () =>
        privateDataDir(dir, (file, fileMode) => {
          if (file !== dir) throw Object.assign(new Error('EIO'), { code: 'EIO' })
          chmodSync(file, fileMode)
        }),
      { code: 'EIO' },
      'other errors are not swallowed',
    )
  },
)
