import { readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { generateCredentials, herdsmanDefaultKey, loadOrCreateCredentials } from '../../../lib/radio/zigbee-network.ts'

t.test('credentials are generated once, private, and read back unchanged', async (t) => {
  const dir = path.join(t.testdir(), 'zigbee')
  const first = loadOrCreateCredentials(dir)
  t.equal(first.networkKey.length, 16)
  t.equal(first.extendedPanId.length, 8)
  t.ok(first.panId >= 1 && first.panId <= 0xfffe)
  t.notSame(first.networkKey, herdsmanDefaultKey)
  t.equal(statSync(path.join(dir, 'network.json')).mode & 0o777, 0o600, 'only the gateway user can read the key')
  t.same(loadOrCreateCredentials(dir), first)
})

t.test('two gateways never share a network', async (t) => {
  const keys = new Set(Array.from({ length: 50 }, () => Buffer.from(generateCredentials().networkKey).toString('hex')))
  t.equal(keys.size, 50)
})

t.test('a damaged credentials file stops the radio instead of forming a new network', async (t) => {
  const dir = t.testdir({ 'network.json': '{"networkKey":"zz"}' })
  t.throws(() => loadOrCreateCredentials(dir), /damaged; restore it from a backup/)
  writeFileSync(path.join(dir, 'network.json'), '{not json')
  t.throws(() => loadOrCreateCredentials(dir), /not valid JSON/)
  t.equal(readFileSync(path.join(dir, 'network.json'), 'utf8'), '{not json', 'left as found for the operator')
})
