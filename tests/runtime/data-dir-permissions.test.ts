// Started from a shell with umask 022, the gateway still keeps its data dir to its owner:
// files from before are fixed at start, new ones are created 0600.
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import { startGateway } from '../../runtime/wiring/main.ts'

function modes(dir: string, out: Record<string, number> = {}): Record<string, number> {
  out[dir] = statSync(dir).mode & 0o777
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) modes(file, out)
    else if (entry.isFile()) out[file] = statSync(file).mode & 0o777
  }
  return out
}

t.test('umask 022: the data dir is 0700 and every file in it 0600', async (t) => {
  const previous = process.umask(0o022)
  t.teardown(() => void process.umask(previous))
  const dataDir = path.join(t.testdir(), 'data')
  mkdirSync(dataDir, { mode: 0o755 })
  writeFileSync(path.join(dataDir, 'settings.db'), '')
  chmodSync(path.join(dataDir, 'settings.db'), 0o644)
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false } })
  const gateway = await startGateway({ config, log: memoryLogger('warn').log })
  // Writes after start: an order, a webhook secret, a token.
  await gateway.services.orders.create({ name: 3, orderType: 'TO_GO', requireTracker: false })
  await gateway.services.tokens.issue('perm-test')
  await gateway.stop()
  const found = modes(dataDir)
  t.ok(Object.keys(found).length > 5, `${Object.keys(found).length} entries checked`)
  for (const [file, mode] of Object.entries(found)) {
    t.equal(mode.toString(8), file === dataDir || statSync(file).isDirectory() ? '700' : '600', path.relative(dataDir, file) || 'the data dir')
  }
})
