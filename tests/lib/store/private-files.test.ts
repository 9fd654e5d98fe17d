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
